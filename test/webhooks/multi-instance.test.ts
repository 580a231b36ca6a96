import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { provisionedServers, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Two instances on one PostgreSQL database (PGlite is single-process): needs TEST_DATABASE_URL.
const shared = Boolean(process.env.TEST_DATABASE_URL);

let a: TestApp;
let b: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  if (!shared) return;
  a = await startTestApp({ webhookAllowPrivate: true });
  b = await startTestApp({
    webhookAllowPrivate: true,
    databaseUrl: a.running.app.config.databaseUrl,
    webhookSecretKey: a.running.app.webhookSecretKey.toString('hex'),
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await b?.stop();
  await a?.stop();
});

describe.skipIf(!shared)('delivery queue shared by two instances', () => {
  it('two instances draining the same queue at once send each delivery exactly once', async () => {
    const c = await a.customer();
    const servers = await provisionedServers(a, c.accountId, 5);
    // 8 subscriptions × 50 events = 400 deliveries: more than one claim (200), so both instances get work.
    for (let h = 0; h < 8; h++)
      await a.call('POST', '/v1/webhooks', {
        key: c.key,
        body: { url: `${receiver.url}/shared${h}`, events: ['server.power.changed'] },
      });
    const calls: Promise<unknown>[] = [];
    for (const id of servers) {
      calls.push(
        (async () => {
          for (let i = 0; i < 10; i++)
            await a.call('POST', `/v1/servers/${id}/power/${i % 2 ? 'start' : 'stop'}`, { key: c.key });
        })(),
      );
    }
    await Promise.all(calls);
    await b.running.app.clock.load();
    receiver.received.length = 0;
    // The relays (always on) queue the deliveries; nothing sends until due work runs.
    const pending = () =>
      a.running.app.prisma.webhookDelivery.count({ where: { accountId: c.accountId, status: 'pending' } });
    for (let i = 0; i < 200 && (await pending()) < 400; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await pending()).toBe(400);
    receiver.respond = () => new Promise((r) => setTimeout(() => r(200), 5));
    await Promise.all([
      a.running.app.runDueWork(),
      b.running.app.runDueWork(),
      a.running.app.runDueWork(),
      b.running.app.runDueWork(),
    ]);
    const ids = receiver.received.map((r) => r.headers['x-service-delivery-id']);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
    expect(
      await a.running.app.prisma.webhookDelivery.count({ where: { accountId: c.accountId, status: 'succeeded' } }),
    ).toBe(400);
    // Both instances took part.
    const sent = (t: TestApp) =>
      t.logs.filter((l) => l.includes('webhook delivery attempt') && l.includes('"ok":true')).length;
    expect(sent(a)).toBeGreaterThan(0);
    expect(sent(b)).toBeGreaterThan(0);
    expect(sent(a) + sent(b)).toBe(400);
  });
});
