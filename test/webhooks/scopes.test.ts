import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const NARROW = ['webhooks:read', 'webhooks:write', 'tickets:read', 'tickets:write'];

/** A second key on the same account. */
async function keyOf(c: Customer, scopes: string[]): Promise<string> {
  const r = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes });
  expect(r.status).toBe(201);
  return r.body.key;
}

async function subscribe(key: string, path: string, events: string[] = ['*']) {
  const res = await app.call('POST', '/v1/webhooks', { key, body: { url: receiver.url + path, events } });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/** A ticket (tickets:read) and an invoice (billing:read) on the account, relayed and delivered. */
async function ticketAndInvoice(c: Customer) {
  expect(
    (
      await app.call('POST', '/v1/tickets', {
        key: c.key,
        body: { subject: 'Hi', message: 'Hello.', department: 'technical' },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
        items: [{ description: 'Secret amount', amountUsdCents: 123_456 }],
      })
    ).status,
  ).toBe(201);
  await runDueWork(app);
  await runDueWork(app);
}

const kindsSent = (path: string) =>
  receiver.received
    .filter((r) => r.path === path)
    .map((r) => r.json.type)
    .sort();
const kindsQueued = async (webhookId: string) =>
  (await app.running.app.prisma.webhookDelivery.findMany({ where: { webhookId } })).map((d) => d.eventType).sort();

describe('a webhook is sent only what its owner credential can read', () => {
  it('a webhooks:write key subscribed to "*" gets ticket events but no invoice amounts; a full key on the same account gets both', async () => {
    const c = await app.customer();
    const narrow = await subscribe(await keyOf(c, NARROW), '/narrow-star');
    const full = await subscribe(c.key, '/full-star');
    await ticketAndInvoice(c);
    expect(await kindsQueued(narrow)).toEqual(['ticket.created']);
    expect(kindsSent('/narrow-star')).toEqual(['ticket.created']);
    expect(receiver.received.filter((r) => r.path === '/narrow-star').some((r) => r.body.includes('123456'))).toBe(
      false,
    );
    expect(await kindsQueued(full)).toEqual(['invoice.created', 'ticket.created']);
  });

  it('subscribing to a kind the key cannot read is refused (403, param events) and creates nothing', async () => {
    const c = await app.customer();
    const key = await keyOf(c, NARROW);
    const res = await app.call('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/denied`, events: ['ticket.created', 'invoice.paid'] },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
      param: 'events',
      message: expect.stringContaining('billing:read'),
    });
    expect((await app.call('GET', '/v1/webhooks', { key: c.key })).body.data).toEqual([]);
  });

  it('a narrow key cannot widen a subscription to unreadable kinds, nor take over a full key\'s "*" subscription by moving its URL', async () => {
    const c = await app.customer();
    const key = await keyOf(c, NARROW);
    const full = await subscribe(c.key, '/owner');
    const widen = await app.call('PATCH', `/v1/webhooks/${full}`, { key, body: { events: ['invoice.created'] } });
    expect(widen.status).toBe(403);
    expect((await app.call('GET', `/v1/webhooks/${full}`, { key: c.key })).body.events).toEqual(['*']);

    // Moved by the narrow key: from now on it is sent what that key can read.
    expect(
      (await app.call('PATCH', `/v1/webhooks/${full}`, { key, body: { url: `${receiver.url}/moved` } })).status,
    ).toBe(200);
    await ticketAndInvoice(c);
    expect(kindsSent('/moved')).toEqual(['ticket.created']);
  });

  it('a subscription from before owner scopes were recorded keeps every kind', async () => {
    const c = await app.customer();
    const legacy = await subscribe(await keyOf(c, NARROW), '/legacy');
    await app.running.app.prisma.webhook.update({ where: { id: legacy }, data: { ownerScopes: ['*'] } });
    await ticketAndInvoice(c);
    expect(await kindsQueued(legacy)).toEqual(['invoice.created', 'ticket.created']);
  });
});
