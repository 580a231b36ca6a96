import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { events, expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const T = ['tickets:read', 'tickets:write'];
const open = (key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  app.call('POST', '/v1/tickets', {
    key,
    headers,
    body: {
      subject: 'Server unreachable',
      message: 'web-1 stopped answering at 10:00.',
      department: 'technical',
      priority: 'high',
      ...body,
    },
  });

describe('support tickets', () => {
  it('open: numbered, first message in the thread, ticket.created; list and detail', async () => {
    const c = await app.customer({ scopes: T });
    const res = await open(c.key);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tkt_/),
      number: expect.stringMatching(/^TKT-\d{6,}$/),
      subject: 'Server unreachable',
      department: 'technical',
      priority: 'high',
      status: 'open',
      lastReplyAt: expect.any(String),
      closedAt: null,
      createdAt: expect.any(String),
      messages: [
        {
          id: expect.any(String),
          author: 'customer',
          body: 'web-1 stopped answering at 10:00.',
          createdAt: expect.any(String),
        },
      ],
    });
    expect((await events(app, c, 'ticket.created')).map((e) => e.data)).toEqual([
      {
        ticketId: res.body.id,
        ticketNumber: res.body.number,
        subject: 'Server unreachable',
        status: 'open',
        priority: 'high',
      },
    ]);
    const second = await open(c.key, { subject: 'Invoice question', department: undefined, priority: undefined });
    expect(second.body).toMatchObject({ department: 'general', priority: 'normal' });
    const list = await app.call('GET', '/v1/tickets', { key: c.key });
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([second.body.id, res.body.id]);
    expect(list.body.data[0].messages).toBeUndefined();
    const detail = await app.call('GET', `/v1/tickets/${res.body.id}`, { key: c.key });
    expect(detail.body.messages).toHaveLength(1);
    const other = await app.customer({ scopes: T });
    expectError(await app.call('GET', `/v1/tickets/${res.body.id}`, { key: other.key }), 404);
    expectError(
      await app.call('POST', `/v1/tickets/${res.body.id}/reply`, { key: other.key, body: { body: 'hi' } }),
      404,
    );
    expectError(
      await app.call('POST', '/v1/tickets', {
        key: (await app.customer({ scopes: ['tickets:read'] })).key,
        body: { subject: 's', message: 'm' },
      }),
      403,
      /tickets:write/,
    );
  });

  it('validates department, priority, subject and message', async () => {
    const c = await app.customer({ scopes: T });
    expectError(
      await open(c.key, { department: 'legal' }),
      400,
      /department must be one of general, technical, billing, sales, abuse/,
    );
    expectError(await open(c.key, { priority: 'critical' }), 400, /priority must be one of low, normal, high, urgent/);
    expectError(await open(c.key, { subject: '   ' }), 400, /subject/);
    expectError(await open(c.key, { subject: 'x'.repeat(201) }), 400, /subject/);
    expectError(await open(c.key, { message: '' }), 400, /message/);
    expectError(
      await app.call('POST', '/v1/tickets', { key: c.key, body: { subject: 'only a subject' } }),
      400,
      /message/,
    );
  });

  it('honours Idempotency-Key: a retry returns the same ticket and opens nothing new', async () => {
    const c = await app.customer({ scopes: T });
    const first = await open(c.key, {}, { 'Idempotency-Key': 'ticket-retry-1' });
    const again = await open(c.key, {}, { 'Idempotency-Key': 'ticket-retry-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await app.call('GET', '/v1/tickets', { key: c.key })).body.data).toHaveLength(1);
    expect(await events(app, c, 'ticket.created')).toHaveLength(1);
    expect((await open(c.key, { subject: 'Other' }, { 'Idempotency-Key': 'ticket-retry-1' })).status).toBe(422);
  });

  it('customer and staff replies move the status; closed tickets refuse replies with 400 naming why', async () => {
    const c = await app.customer({ scopes: T });
    const t = (await open(c.key)).body;
    const staff = await app.admin('POST', `/admin/tickets/${t.id}/replies`, { body: 'We are looking into it.' });
    expect(staff.status, staff.text).toBe(201);
    expect(staff.body).toMatchObject({ status: 'answered' });
    expect((await events(app, c, 'ticket.replied')).map((e) => e.data)).toEqual([
      { ticketId: t.id, ticketNumber: t.number, subject: t.subject, status: 'answered' },
    ]);
    const reply = await app.call('POST', `/v1/tickets/${t.id}/reply`, {
      key: c.key,
      body: { body: 'Thanks, it is back.' },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.status).toBe('open');
    expect(reply.body.messages.map((m: { author: string; body: string }) => [m.author, m.body])).toEqual([
      ['customer', 'web-1 stopped answering at 10:00.'],
      ['staff', 'We are looking into it.'],
      ['customer', 'Thanks, it is back.'],
    ]);
    expectError(await app.call('POST', `/v1/tickets/${t.id}/reply`, { key: c.key, body: { body: '' } }), 400, /body/);
    const close = await app.call('POST', `/v1/tickets/${t.id}/close`, { key: c.key });
    expect(close.status).toBe(200);
    expect(close.body).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
    expect((await app.call('POST', `/v1/tickets/${t.id}/close`, { key: c.key })).body.status).toBe('closed');
    expectError(
      await app.call('POST', `/v1/tickets/${t.id}/reply`, { key: c.key, body: { body: 'One more thing' } }),
      400,
      new RegExp(`${t.number} is closed`),
    );
    expectError(await app.admin('POST', `/admin/tickets/${t.id}/replies`, { body: 'Late staff reply' }), 400, /closed/);
    expect((await app.call('GET', `/v1/tickets/${t.id}`, { key: c.key })).body.messages).toHaveLength(3);
    expectError(await app.admin('POST', '/admin/tickets/tkt_missing/replies', { body: 'x' }), 404);
  });
});
