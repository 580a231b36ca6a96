import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChange } from '../../src/events/live-changes.ts';
import { EVENT_TYPES, LIVE_CHANGE_TYPES } from '../../src/events/catalog.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { subscribeLiveChanges, type SubscribedChange, type Subscriber } from '../helpers/graphql-ws.ts';
import { buy, SHAPE_PRICE } from '../helpers/pools.ts';
import { advance, events } from '../helpers/servers.ts';
import { provisionedServers, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Live changes: the state moves no account event reports (a reboot settling, a webhook delivery
// attempted) reach `liveChanges` subscribers as they commit, filtered by account and scope, and
// nothing else: no event row, no history, no webhook delivery.
let app: TestApp;
let receiver: Receiver;
const subscribers: Subscriber<SubscribedChange>[] = [];
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const s of subscribers) await s.dispose();
  await receiver?.close();
  await app?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listen(key: string, variables: Record<string, unknown> = {}) {
  const s = await subscribeLiveChanges(app.url, key, variables);
  subscribers.push(s);
  return s;
}

/** Waits for a change matching `want` among those received (rejects after 5 s, naming what came). */
async function heard(s: Subscriber<SubscribedChange>, want: { type: string; data: Record<string, unknown> }) {
  const until = Date.now() + 5000;
  for (;;) {
    const found = s.events.find(
      (c) => c.type === want.type && expect.objectContaining(want.data).asymmetricMatch(c.data),
    );
    if (found) return found;
    if (Date.now() > until)
      throw new Error(
        `no ${JSON.stringify(want)} among ${JSON.stringify(s.events)}; errors ${JSON.stringify(s.errors)}`,
      );
    await sleep(20);
  }
}

/** The status moves announced for one server, in the order heard. */
const statusesOf = (s: Subscriber<SubscribedChange>, serverId: string) =>
  s.events.filter((c) => c.type === 'server.status.changed' && c.data.serverId === serverId).map((c) => c.data.status);

async function keyOf(c: Customer, scopes: string[]): Promise<string> {
  const res = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes });
  expect(res.status, res.text).toBe(201);
  return res.body.key;
}

/** Rows of the account's event log and webhook deliveries: what a live change must not add to. */
async function recorded(c: Customer) {
  const prisma = app.running.app.prisma;
  return {
    events: await prisma.event.count({ where: { accountId: c.accountId } }),
    deliveries: await prisma.webhookDelivery.count({ where: { accountId: c.accountId } }),
  };
}

describe('the live-change catalogue', () => {
  it('is apart from the account events, each kind read with its area scope', () => {
    expect(Object.fromEntries(Object.entries(LIVE_CHANGE_TYPES).map(([k, v]) => [k, v.scope]))).toEqual({
      'server.status.changed': 'servers:read',
      'pool.status.changed': 'servers:read',
      'hosting.status.changed': 'hosting:read',
      'webhook.delivery.changed': 'webhooks:read',
    });
    for (const kind of Object.keys(LIVE_CHANGE_TYPES)) expect(Object.keys(EVENT_TYPES)).not.toContain(kind);
  });
});

describe('server moves no event reports', () => {
  it('a reboot, a plan change and a revert settling are heard when the API says running; nothing is recorded for them', async () => {
    const c = await app.customer();
    const [id] = await provisionedServers(app, c.accountId);
    const hook = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: `${receiver.url}/all`, events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(200);
    const live = await listen(c.key);
    const status = async () => (await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status;

    expect((await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key })).status).toBe(200);
    expect(await status()).toBe('rebooting');
    // The reboot's own event relayed and its delivery queued first: only the settling is compared.
    await runDueWork(app);
    let before = await recorded(c);
    await advance(app, 61);
    const settled = await heard(live, { type: 'server.status.changed', data: { serverId: id, status: 'running' } });
    expect(settled).toEqual({
      type: 'server.status.changed',
      created: expect.stringMatching(/Z$/),
      account: c.accountId,
      data: { serverId: id, status: 'running' },
    });
    expect(await status()).toBe('running');
    await runDueWork(app);
    expect(await recorded(c)).toEqual(before);

    const resize = await app.call('POST', `/v1/servers/${id}/change-plan`, {
      key: c.key,
      body: { productId: 'std-4c-8g-50' },
    });
    expect(resize.status, resize.text).toBe(200);
    expect(await status()).toBe('rebooting');
    await advance(app, 61);
    await sleep(300);
    expect(statusesOf(live, id)).toEqual(['running', 'running']);

    const snap = await app.call('POST', `/v1/servers/${id}/snapshots`, { key: c.key, body: { name: 'before' } });
    expect(snap.status, snap.text).toBe(200);
    const revert = await app.call('POST', `/v1/servers/${id}/snapshots/${snap.body.id}/revert`, { key: c.key });
    expect(revert.status, revert.text).toBe(200);
    expect(await status()).toBe('restoring');
    await runDueWork(app);
    before = await recorded(c);
    await advance(app, 121);
    await sleep(300);
    expect(statusesOf(live, id)).toEqual(['running', 'running', 'running']);
    await runDueWork(app);
    expect(await recorded(c)).toEqual(before);
    // The history has the accepted changes, never a settling.
    expect((await events(app, c)).map((e) => e.type)).not.toContain('server.status.changed');
    const history = await app.call('GET', '/v1/events?limit=100', { key: c.key });
    expect(history.body.data.map((e: { type: string }) => e.type)).not.toContain('server.status.changed');
    expect(receiver.received.filter((r) => r.path === '/all').map((r) => r.json.type)).not.toContain(
      'server.status.changed',
    );
  });

  it('an order, a reinstall and a pool order are heard at once; their end comes as the account event', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 50_000 });
    const live = await listen(c.key);
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'ordered',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    expect(order.status, order.text).toBe(201);
    await heard(live, { type: 'server.status.changed', data: { serverId: order.body.id, status: 'provisioning' } });
    await advance(app, 180);

    const reinstall = await app.call('POST', `/v1/servers/${order.body.id}/reinstall`, {
      key: c.key,
      body: { osTemplate: 'debian-12' },
    });
    expect(reinstall.status, reinstall.text).toBe(200);
    await heard(live, { type: 'server.status.changed', data: { serverId: order.body.id, status: 'reinstalling' } });

    // A private-only server in a pool takes no address: no pool event names it, the change does.
    const pool = await buy(app, c);
    const before = await recorded(c);
    const member = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-2c-4g-50', label: 'private', os: 'linux', osTemplate: 'debian-12', ipCount: 0 },
    });
    expect(member.status, member.text).toBe(200);
    await heard(live, { type: 'server.status.changed', data: { serverId: member.body.id, status: 'provisioning' } });
    expect(await recorded(c)).toEqual(before);
    await advance(app, 180);
    expect((await events(app, c, 'server.created')).map((e) => e.data.serverId)).toContain(member.body.id);
    expect(statusesOf(live, member.body.id)).toEqual(['provisioning']);

    // Deleting the pool powers its servers off: each heard stopped.
    expect((await app.call('DELETE', `/v1/pools/${pool.id}`, { key: c.key })).status).toBe(200);
    await heard(live, { type: 'server.status.changed', data: { serverId: member.body.id, status: 'stopped' } });
  });

  it('a paid overdue renewal makes a suspended pool active again, and its servers stopped: each heard', async () => {
    const c = await app.customer({ walletBalanceUsdCents: SHAPE_PRICE });
    const pool = await buy(app, c);
    const member = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-2c-4g-50', label: 'node', os: 'linux', osTemplate: 'debian-12', ipCount: 0 },
    });
    expect(member.status, member.text).toBe(200);
    await advance(app, 32 * 86_400);
    await advance(app, 4 * 86_400);
    expect((await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body.status).toBe('suspended');
    const live = await listen(c.key);
    const invoices = await app.call('GET', '/v1/billing/invoices?limit=10', { key: c.key });
    const overdue = invoices.body.data.find((i: { status: string }) => i.status !== 'paid');
    const paid = await app.admin('POST', `/admin/invoices/${overdue.id}/pay`, { gateway: 'card' });
    expect(paid.status, paid.text).toBe(200);
    await heard(live, { type: 'pool.status.changed', data: { poolId: pool.id, status: 'active' } });
    await heard(live, { type: 'server.status.changed', data: { serverId: member.body.id, status: 'stopped' } });
  });
});

describe('hosting and webhook deliveries', () => {
  it('a hosting order is heard provisioning', async () => {
    const c = await app.customer();
    const live = await listen(c.key);
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, {
      domain: 'live-order.example.com',
    });
    expect(order.status, order.text).toBe(201);
    await heard(live, { type: 'hosting.status.changed', data: { hostingId: order.body.id, status: 'provisioning' } });
  });

  it('a redelivery, a test event and each attempt are heard with the delivery status; no event row, no new delivery', async () => {
    const c = await app.customer();
    const hook = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: `${receiver.url}/deliveries`, events: ['server.power.changed'] },
    });
    const webhookId = hook.body.id;
    const [serverId] = await provisionedServers(app, c.accountId);
    const live = await listen(c.key, { types: ['webhook.delivery.changed'] });
    expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key })).status).toBe(200);
    await runDueWork(app);
    const log = await app.call('GET', `/v1/webhooks/${webhookId}/deliveries`, { key: c.key });
    const [delivery] = log.body.data;
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    const first = { webhookId, deliveryId: delivery.id };
    await heard(live, { type: 'webhook.delivery.changed', data: { ...first, status: 'succeeded', attemptCount: 1 } });

    const before = await recorded(c);
    receiver.respond = () => 500;
    const again = await app.call('POST', `/v1/webhooks/${webhookId}/deliveries/${delivery.id}/redeliver`, {
      key: c.key,
    });
    expect(again.status, again.text).toBe(200);
    await heard(live, { type: 'webhook.delivery.changed', data: { ...first, status: 'pending', attemptCount: 1 } });
    await runDueWork(app);
    await heard(live, { type: 'webhook.delivery.changed', data: { ...first, status: 'failed', attemptCount: 2 } });
    receiver.respond = () => 200;
    expect(await recorded(c)).toEqual(before);

    const test = await app.call('POST', `/v1/webhooks/${webhookId}/test`, { key: c.key });
    expect(test.status, test.text).toBe(200);
    const tested = { webhookId, deliveryId: test.body.id };
    await heard(live, { type: 'webhook.delivery.changed', data: { ...tested, status: 'pending', attemptCount: 0 } });
    await runDueWork(app);
    await heard(live, { type: 'webhook.delivery.changed', data: { ...tested, status: 'succeeded', attemptCount: 1 } });
    expect(live.events.every((e) => e.type === 'webhook.delivery.changed')).toBe(true);
  });
});

describe('who hears a change', () => {
  it("only the account's own subscribers with the kind's read scope; a refused kind or an unknown one is an error", async () => {
    const c = await app.customer();
    const other = await app.customer();
    const [id] = await provisionedServers(app, c.accountId);
    const blind = await listen(await keyOf(c, ['webhooks:read', 'hosting:read']));
    const stranger = await listen(other.key);
    const reader = await listen(await keyOf(c, ['servers:read']));
    expect((await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key })).status).toBe(200);
    await advance(app, 61);
    await heard(reader, { type: 'server.status.changed', data: { serverId: id, status: 'running' } });
    await sleep(300);
    expect(blind.events).toEqual([]);
    expect(stranger.events).toEqual([]);

    const named = await listen(await keyOf(c, ['webhooks:read']), { types: ['server.status.changed'] });
    const unknown = await listen(c.key, { types: ['server.created'] });
    const none = await listen(await keyOf(c, ['account:read']));
    await sleep(300);
    expect(JSON.stringify(named.errors)).toMatch(/servers:read/);
    expect(JSON.stringify(unknown.errors)).toMatch(/unknown kind/);
    expect(JSON.stringify(none.errors)).toMatch(/FORBIDDEN|scope/i);
  });

  it('a revoked key hears nothing more: its subscription ends', async () => {
    const c = await app.customer();
    const [id] = await provisionedServers(app, c.accountId);
    const key = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:read'] });
    const live = await listen(key.body.key);
    expect((await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${key.body.id}`)).status).toBe(200);
    expect((await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key })).status).toBe(200);
    await advance(app, 61);
    await sleep(500);
    expect(live.events).toEqual([]);
    expect(JSON.stringify(live.errors)).toMatch(/revoked|expired|UNAUTHENTICATED/);
  });

  it('a change announced in a transaction that rolls back is heard by no one', async () => {
    const c = await app.customer();
    const live = await listen(c.key);
    const { prisma, clock } = app.running.app;
    const data = { serverId: 'srv_rolled_back', status: 'running' };
    await expect(
      prisma.$transaction(async (tx) => {
        await announceChange(tx, c.accountId, 'server.status.changed', data, clock.now());
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await prisma.$transaction((tx) =>
      announceChange(tx, c.accountId, 'server.status.changed', { ...data, serverId: 'srv_committed' }, clock.now()),
    );
    await heard(live, { type: 'server.status.changed', data: { serverId: 'srv_committed' } });
    expect(live.events.map((e) => e.data.serverId)).toEqual(['srv_committed']);
  });
});

// Two instances on one PostgreSQL database (PGlite is single-process): needs TEST_DATABASE_URL.
describe.skipIf(!process.env.TEST_DATABASE_URL)('live changes across instances', () => {
  it('a change committed on one instance is heard by the subscribers of another, Redis or not', async () => {
    const other = await startTestApp({
      webhookAllowPrivate: true,
      databaseUrl: app.running.app.config.databaseUrl,
      webhookSecretKey: app.running.app.webhookSecretKey.toString('hex'),
      redisUrl: undefined,
    });
    try {
      const c = await app.customer();
      const [id] = await provisionedServers(app, c.accountId);
      const elsewhere = await subscribeLiveChanges(other.url, c.key);
      subscribers.push(elsewhere);
      expect((await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key })).status).toBe(200);
      await advance(app, 61);
      await heard(elsewhere, { type: 'server.status.changed', data: { serverId: id, status: 'running' } });
    } finally {
      await other.stop();
    }
  });
});
