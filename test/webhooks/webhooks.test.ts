import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import {
  advance,
  parseSignature,
  provisionedServers,
  runDueWork,
  startReceiver,
  type Receiver,
} from '../helpers/webhooks.ts';

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

const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

async function subscribe(c: Customer, events: string[] = ['*'], path = '/hook') {
  const res = await app.call('POST', '/v1/webhooks', {
    key: c.key,
    body: { url: receiver.url + path, events, description: 'test' },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; secret: string };
}

/** Requests that reached the receiver for one subscription path. */
const at = (path: string) => receiver.received.filter((r) => r.path === path);

describe('webhook subscriptions', () => {
  it('create returns the secret once; get and list mask it; patch, delete; 404 across accounts', async () => {
    const c = await app.customer();
    const created = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: `${receiver.url}/crud`, events: ['server.created', 'ticket.created'], description: 'ops' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
      url: `${receiver.url}/crud`,
      events: ['server.created', 'ticket.created'],
      description: 'ops',
      isActive: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { id, secret } = created.body;
    const got = await app.call('GET', `/v1/webhooks/${id}`, { key: c.key });
    expect(got.body.secret).toBe(`whsec_****${secret.slice(-4)}`);
    expect(got.text).not.toContain(secret);
    const list = await app.call('GET', '/v1/webhooks', { key: c.key });
    expect(list.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(list.body.data.map((w: { id: string; secret: string }) => [w.id, w.secret])).toEqual([
      [id, got.body.secret],
    ]);
    // The secret is encrypted at rest.
    const row = await app.running.app.prisma.webhook.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));

    const patched = await app.call('PATCH', `/v1/webhooks/${id}`, {
      key: c.key,
      body: { events: ['*'], description: 'all', isActive: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['*'], description: 'all', isActive: false, secret: got.body.secret });

    const other = await app.customer();
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
    ]) {
      const res = await app.call(method, path, {
        key: other.key,
        body: method === 'PATCH' ? { isActive: true } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({
        statusCode: 404,
        message: 'Webhook not found.',
        error: 'Not Found',
        code: 'NOT_FOUND',
      });
    }
    expect((await app.call('GET', '/v1/webhooks', { key: other.key })).body.data).toEqual([]);

    const deleted = await app.call('DELETE', `/v1/webhooks/${id}`, { key: c.key });
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await app.call('GET', `/v1/webhooks/${id}`, { key: c.key })).status).toBe(404);
  });

  it('validates events and fields, and needs webhooks:read / webhooks:write', async () => {
    const c = await app.customer();
    const bad = async (body: unknown) => (await app.call('POST', '/v1/webhooks', { key: c.key, body })).status;
    expect(await bad({ url: `${receiver.url}/x`, events: ['server.exploded'] })).toBe(400);
    expect(await bad({ url: `${receiver.url}/x`, events: [] })).toBe(400);
    expect(await bad({ url: `${receiver.url}/x`, events: ['*', 'server.created'] })).toBe(400);
    expect(await bad({ url: 'not a url', events: ['*'] })).toBe(400);
    expect(await bad({ url: 'ftp://example.com/x', events: ['*'] })).toBe(400);
    expect(await bad({ url: `${receiver.url}/x`, events: ['*'], description: 'x'.repeat(501) })).toBe(400);

    const reader = await app.customer({ scopes: ['webhooks:read'] });
    expect((await app.call('GET', '/v1/webhooks', { key: reader.key })).status).toBe(200);
    const refused = await app.call('POST', '/v1/webhooks', {
      key: reader.key,
      body: { url: `${receiver.url}/x`, events: ['*'] },
    });
    expect(refused.status).toBe(403);
    const none = await app.customer({ scopes: ['servers:read'] });
    expect((await app.call('GET', '/v1/webhooks', { key: none.key })).status).toBe(403);
  });

  it('delivers a signed envelope; after rotate the new secret verifies and the old one does not', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.created', 'server.power.changed'], '/signed');
    const [serverId] = await provisionedServers(app, c.accountId);
    await runDueWork(app);
    const [first] = at('/signed');
    expect(first).toBeDefined();
    expect(first.headers['content-type']).toBe('application/json');
    const sig = parseSignature(first.headers['x-service-signature']);
    expect(Math.abs(sig.t - Date.now() / 1000)).toBeLessThan(60);
    expect(sig.v1).toBe(hmac(hook.secret, sig.t, first.body));
    expect(first.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'server.created',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      account: c.accountId,
      apiVersion: '1.16',
      data: { serverId, status: 'running', label: 'web-1' },
    });
    expect(first.headers['x-service-event-id']).toBe(first.json.id);
    expect(first.headers['x-service-event-type']).toBe('server.created');
    expect(first.headers['x-service-delivery-id']).toMatch(/^whd_/);

    const rotated = await app.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: c.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect((await app.call('GET', `/v1/webhooks/${hook.id}`, { key: c.key })).body.secret).toBe(
      `whsec_****${rotated.body.secret.slice(-4)}`,
    );

    expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key })).status).toBe(200);
    await runDueWork(app);
    const second = at('/signed')[1];
    expect(second.json).toMatchObject({ type: 'server.power.changed', data: { serverId, action: 'stop' } });
    const sig2 = parseSignature(second.headers['x-service-signature']);
    expect(sig2.v1).toBe(hmac(rotated.body.secret, sig2.t, second.body));
    expect(sig2.v1).not.toBe(hmac(hook.secret, sig2.t, second.body));
  });

  it('retries after a 500 once the simulated clock passes 1 minute, and logs the attempts', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.created'], '/retry');
    let calls = 0;
    receiver.respond = (r) => (r.path === '/retry' && calls++ === 0 ? 500 : 200);
    try {
      await provisionedServers(app, c.accountId);
      await runDueWork(app);
      expect(at('/retry')).toHaveLength(1);
      let log = await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key });
      let d = log.body.data[0];
      expect(d).toMatchObject({ status: 'pending', attemptCount: 1, lastStatusCode: 500, eventType: 'server.created' });
      expect(Date.parse(d.nextAttemptAt) - Date.parse(d.attempts[0].startedAt)).toBeGreaterThanOrEqual(60_000);
      expect(Date.parse(d.nextAttemptAt) - Date.parse(d.attempts[0].startedAt)).toBeLessThan(62_000);

      await runDueWork(app); // not due yet
      await advance(app, 30);
      expect(at('/retry')).toHaveLength(1);
      await advance(app, 31);
      expect(at('/retry')).toHaveLength(2);
      const [a, b] = at('/retry');
      expect(b.headers['x-service-delivery-id']).toBe(a.headers['x-service-delivery-id']);
      expect(b.body).toBe(a.body);

      log = await app.call('GET', `/v1/webhooks/${hook.id}/deliveries?limit=5`, { key: c.key });
      d = log.body.data[0];
      expect(d).toMatchObject({
        status: 'succeeded',
        attemptCount: 2,
        lastStatusCode: 200,
        nextAttemptAt: null,
        maxAttempts: 16,
      });
      expect(
        d.attempts.map((x: { number: number; statusCode: number | null; succeeded: boolean; manual: boolean }) => [
          x.number,
          x.statusCode,
          x.succeeded,
          x.manual,
        ]),
      ).toEqual([
        [1, 500, false, false],
        [2, 200, true, false],
      ]);
      for (const x of d.attempts) expect(x.durationMs).toBeGreaterThanOrEqual(0);
      expect((await app.call('GET', `/v1/webhooks/${hook.id}/deliveries?limit=0`, { key: c.key })).status).toBe(400);
      expect((await app.call('GET', `/v1/webhooks/${hook.id}/deliveries?limit=101`, { key: c.key })).status).toBe(400);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('backs off 1m, 2m, 4m … capped at 6h, and marks the delivery failed after 16 attempts', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.created'], '/down');
    receiver.respond = (r) => (r.path === '/down' ? 503 : 200);
    try {
      await provisionedServers(app, c.accountId);
      await runDueWork(app);
      const gaps: number[] = [];
      for (let attempt = 1; attempt < 16; attempt++) {
        const d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
        expect(d.status).toBe('pending');
        expect(d.attemptCount).toBe(attempt);
        const gap = Date.parse(d.nextAttemptAt) - Date.parse(d.attempts[attempt - 1].startedAt);
        gaps.push(Math.round(gap / 60_000));
        await advance(app, Math.ceil(gap / 1000) + 1);
        expect(at('/down')).toHaveLength(attempt + 1);
      }
      expect(gaps).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360, 360, 360, 360, 360]);
      const d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
      expect(d).toMatchObject({ status: 'failed', attemptCount: 16, nextAttemptAt: null, lastStatusCode: 503 });
      await advance(app, 7 * 3600);
      expect(at('/down')).toHaveLength(16);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('a paused subscription receives nothing; its deliveries wait and go out on resume', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.power.changed'], '/paused');
    const [serverId] = await provisionedServers(app, c.accountId);
    expect(
      (await app.call('PATCH', `/v1/webhooks/${hook.id}`, { key: c.key, body: { isActive: false } })).body.isActive,
    ).toBe(false);
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
    await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: c.key });
    await runDueWork(app);
    await advance(app, 3600);
    expect(at('/paused')).toHaveLength(0);
    const log = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data;
    expect(log.map((d: { status: string; attemptCount: number }) => [d.status, d.attemptCount])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);

    await app.call('PATCH', `/v1/webhooks/${hook.id}`, { key: c.key, body: { isActive: true } });
    await runDueWork(app);
    expect(
      at('/paused')
        .map((r) => r.json.data.action)
        .sort(),
    ).toEqual(['start', 'stop']);
  });

  it('redeliver queues a new attempt of a past delivery (same delivery id), marked manual', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.created'], '/again');
    await provisionedServers(app, c.accountId);
    await runDueWork(app);
    const d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
    expect(d.status).toBe('succeeded');
    const res = await app.call('POST', `/v1/webhooks/${hook.id}/deliveries/${d.id}/redeliver`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: d.id, status: 'pending', attemptCount: 1 });
    await runDueWork(app);
    const got = at('/again');
    expect(got).toHaveLength(2);
    expect(got[1].headers['x-service-delivery-id']).toBe(d.id);
    expect(got[1].body).toBe(got[0].body);
    const after = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
    expect(after).toMatchObject({ id: d.id, status: 'succeeded', attemptCount: 2 });
    expect(after.attempts.map((a: { manual: boolean }) => a.manual)).toEqual([false, true]);
    expect(
      (await app.call('POST', `/v1/webhooks/${hook.id}/deliveries/whd_nope/redeliver`, { key: c.key })).status,
    ).toBe(404);
    const other = await app.customer();
    expect(
      (await app.call('POST', `/v1/webhooks/${hook.id}/deliveries/${d.id}/redeliver`, { key: other.key })).status,
    ).toBe(404);
  });

  it('delivers each event once to every matching subscription, and nothing to others', async () => {
    const c = await app.customer();
    await subscribe(c, ['*'], '/all');
    await subscribe(c, ['server.power.changed'], '/power');
    await subscribe(c, ['ticket.created'], '/tickets');
    const other = await app.customer();
    await subscribe(other, ['*'], '/other');
    const [serverId] = await provisionedServers(app, c.accountId);
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
    await runDueWork(app);
    expect(
      at('/all')
        .map((r) => r.json.type)
        .sort(),
    ).toEqual(['server.created', 'server.power.changed']);
    expect(at('/power').map((r) => r.json.type)).toEqual(['server.power.changed']);
    expect(at('/tickets')).toEqual([]);
    expect(at('/other')).toEqual([]);
  });

  it('refuses a target that became private at delivery time (checked at every attempt)', async () => {
    const c = await app.customer();
    // Accepted while private targets were allowed; an https URL on a host that resolves to loopback.
    const port = new URL(receiver.url).port;
    const created = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: `https://localhost:${port}/rebound`, events: ['server.created'] },
    });
    const hook = created.body;
    app.running.app.config.webhookAllowPrivate = false;
    try {
      await provisionedServers(app, c.accountId);
      await runDueWork(app);
    } finally {
      app.running.app.config.webhookAllowPrivate = true;
    }
    expect(at('/rebound')).toHaveLength(0);
    const d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ statusCode: null, succeeded: false });
    // Refused without saying what the name resolves to (no DNS oracle in the delivery log).
    expect(d.attempts[0].error).toBe(
      'url is not allowed: its host must resolve to public addresses only, not to a loopback, private, link-local or metadata address.',
    );
  });
});
