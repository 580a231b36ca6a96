import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { subscribeEvents, type Subscriber } from '../helpers/graphql-ws.ts';
import { buy, SHAPE, SHAPE_PRICE } from '../helpers/pools.ts';
import { advance, debits, events, expectError } from '../helpers/servers.ts';
import { parseSignature, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Pool events: each change of a pool is recorded once, in its transaction, with the declared
// payload; webhooks and graphql-ws subscribers holding servers:read get it, others do not.
let app: TestApp;
let receiver: Receiver;
const subscribers: Subscriber[] = [];
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const s of subscribers) await s.dispose();
  await receiver?.close();
  await app?.stop();
});

const POOL_KINDS = ['pool.created', 'pool.resized', 'pool.ips.changed', 'pool.suspended', 'pool.deleted'];
const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

async function hook(c: Customer, path: string, kinds: string[]) {
  const res = await app.call('POST', '/v1/webhooks', { key: c.key, body: { url: receiver.url + path, events: kinds } });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; secret: string };
}

async function listen(key: string, variables: Record<string, unknown> = {}) {
  const s = await subscribeEvents(app.url, key, variables);
  subscribers.push(s);
  return s;
}

/** The account's pool.* events, oldest first, as recorded. */
const poolEvents = async (c: Customer) => (await events(app, c)).filter((e) => e.type.startsWith('pool.'));

/** A second key of the customer's account with these scopes. */
async function keyOf(c: Customer, scopes: string[]): Promise<string> {
  const res = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes });
  expect(res.status, res.text).toBe(201);
  return res.body.key;
}

describe('pool events', () => {
  it('buy, server in it, resize, address moves, termination, delete: each recorded once, delivered signed and live', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 50_000 });
    const wh = await hook(c, '/pools', POOL_KINDS);
    const live = await listen(c.key, { types: POOL_KINDS });

    const pool = await buy(app, c);
    const created = {
      type: 'pool.created',
      data: {
        poolId: pool.id,
        label: 'cluster',
        productId: 'pool-fra1',
        status: 'active',
        ...SHAPE,
        monthlyUsdCents: SHAPE_PRICE,
      },
    };
    expect(await poolEvents(c)).toEqual([created]);

    // A server inside the pool takes one address of the block.
    const srv = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-2c-4g-50', label: 'node-1', os: 'linux', osTemplate: 'ubuntu-24.04', ipCount: 1 },
    });
    expect(srv.status, srv.text).toBe(200);
    const serverId = srv.body.id;
    const took = { type: 'pool.ips.changed', data: { poolId: pool.id, assigned: 1, freed: 0 } };
    expect(await poolEvents(c)).toEqual([created, took]);
    await advance(app, 180);

    // Refused: 2 GB of RAM does not hold the server's 4 GB. Nothing is recorded.
    const before = (await events(app, c)).length;
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, ram2gb: 1 } }),
      409,
      /ramMb/,
    );
    // The shape it already has: no change, no event.
    expect((await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: SHAPE })).status).toBe(200);
    expect(await events(app, c)).toHaveLength(before);

    const grown = { ...SHAPE, vcpu: SHAPE.vcpu + 2 };
    const resize = await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: grown });
    expect(resize.status, resize.text).toBe(200);
    const charged = (await debits(app, c)).find((d) => d.kind === 'pool_resize')!.amountUsdCents;
    const resized = {
      type: 'pool.resized',
      data: { poolId: pool.id, ...grown, monthlyUsdCents: SHAPE_PRICE + 2 * 400, chargedUsdCents: -charged },
    };
    expect(-charged).toBeGreaterThan(0);

    // One batch frees the server's address and gives it another: one event counting both.
    const ips = (await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data as {
      ip: string;
      assignedTo: string | null;
    }[];
    const held = ips.find((ip) => ip.assignedTo === serverId)!.ip;
    const free = ips.find((ip) => ip.assignedTo === null)!.ip;
    const apply = (changes: unknown[]) =>
      app.call('POST', `/v1/pools/${pool.id}/ips/apply`, { key: c.key, body: { changes } });
    expect(
      (
        await apply([
          { ip: held, serverId: null },
          { ip: free, serverId },
        ])
      ).status,
    ).toBe(200);
    const moved = { type: 'pool.ips.changed', data: { poolId: pool.id, assigned: 1, freed: 1 } };
    // Refused (an address outside the block) and a batch that leaves everything in place: nothing.
    // 198.51.100.1 (documentation range) is only refused as outside the block: nothing connects to it.
    expectError(await apply([{ ip: '198.51.100.1', serverId: null }]), 400, /not an address of this pool/);
    expect((await apply([{ ip: free, serverId }])).status).toBe(200);
    expect(await poolEvents(c)).toEqual([created, took, resized, moved]);

    // Terminating the server gives its address back to the block.
    expect((await app.call('DELETE', `/v1/servers/${serverId}`, { key: c.key })).status).toBe(200);
    const returned = { type: 'pool.ips.changed', data: { poolId: pool.id, assigned: 0, freed: 1 } };
    expect((await app.call('DELETE', `/v1/pools/${pool.id}`, { key: c.key })).status).toBe(200);
    const deleted = { type: 'pool.deleted', data: { poolId: pool.id } };
    const recorded = [created, took, resized, moved, returned, deleted];
    expect(await poolEvents(c)).toEqual(recorded);
    // Server events of the pool's server are as before.
    expect((await events(app, c)).filter((e) => e.type.startsWith('server.')).map((e) => e.type)).toEqual([
      'server.created',
      'server.terminated',
    ]);

    // graphql-ws: the same events in order, in the one envelope.
    const seen = await live.waitFor(recorded.length);
    expect(seen.map((e) => ({ type: e.type, data: e.data }))).toEqual(recorded);
    expect(seen.every((e) => e.account === c.accountId && e.apiVersion === '1.16')).toBe(true);

    // Webhook: each delivered once, signed with the subscription's secret, body = that envelope.
    await runDueWork(app);
    const got = receiver.received.filter((r) => r.path === '/pools');
    expect(got).toHaveLength(recorded.length);
    for (const r of got) {
      const sig = parseSignature(r.headers['x-service-signature']);
      expect(sig.v1).toBe(hmac(wh.secret, sig.t, r.body));
      expect(r.headers['x-service-event-type']).toBe(r.json.type);
    }
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(got.map((r) => r.json).sort(byId)).toEqual([...seen].sort(byId));
  });

  it('an unpaid renewal suspends the pool: pool.suspended with the reason', async () => {
    const c = await app.customer({ walletBalanceUsdCents: SHAPE_PRICE });
    const wh = await hook(c, '/suspended', ['pool.suspended']);
    const pool = await buy(app, c);
    await advance(app, 32 * 86_400);
    await advance(app, 4 * 86_400);
    const got = (await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body;
    expect(got.status).toBe('suspended');
    const suspended = await events(app, c, 'pool.suspended');
    expect(suspended).toEqual([
      {
        type: 'pool.suspended',
        data: { poolId: pool.id, reason: expect.stringMatching(/^non-payment: renewal invoice INV-/) },
      },
    ]);
    await runDueWork(app);
    const [delivery, ...more] = receiver.received.filter((r) => r.path === '/suspended');
    expect(more).toEqual([]);
    expect(delivery.json).toMatchObject(suspended[0]);
    const sig = parseSignature(delivery.headers['x-service-signature']);
    expect(sig.v1).toBe(hmac(wh.secret, sig.t, delivery.body));
  });

  it('a credential without servers:read sees no pool event: not live, not by webhook, not in the history', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 50_000 });
    const blind = await keyOf(c, ['tickets:read', 'tickets:write', 'webhooks:read', 'webhooks:write', 'account:read']);

    // Asking for a pool kind by name is refused, on every path.
    const refusedHook = await app.call('POST', '/v1/webhooks', {
      key: blind,
      body: { url: `${receiver.url}/blind`, events: ['pool.created'] },
    });
    expectError(refusedHook, 403, /servers:read/);
    const named = await listen(blind, { types: ['pool.resized'] });
    expect(JSON.stringify(named.errors)).toMatch(/servers:read/);
    expectError(await app.call('GET', '/v1/events?type=pool.deleted', { key: blind }), 403, /servers:read/);

    // Everything it can read: tickets come through, pool events do not.
    await hook({ ...c, key: blind }, '/blind', ['*']);
    const all = await listen(blind);
    const pool = await buy(app, c);
    expect(
      (await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, disk100: 3 } })).status,
    ).toBe(200);
    const ticket = await app.call('POST', '/v1/tickets', { key: blind, body: { subject: 'Hi', message: 'Hello.' } });
    expect(ticket.status, ticket.text).toBe(200);
    expect((await poolEvents(c)).map((e) => e.type)).toEqual(['pool.created', 'pool.resized']);

    expect((await all.waitFor(1)).map((e) => e.type)).toEqual(['ticket.created']);
    await runDueWork(app);
    expect(receiver.received.filter((r) => r.path === '/blind').map((r) => r.json.type)).toEqual(['ticket.created']);
    const history = await app.call('GET', '/v1/events', { key: blind });
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['ticket.created']);
    // The same history read with servers:read has them.
    const sighted = await keyOf(c, ['servers:read', 'account:read']);
    const full = await app.call('GET', '/v1/events?type=pool.resized', { key: sighted });
    expect(full.body.data.map((e: { data: unknown }) => e.data)).toEqual([
      {
        poolId: pool.id,
        ...SHAPE,
        disk100: 3,
        monthlyUsdCents: SHAPE_PRICE + 300,
        chargedUsdCents: expect.any(Number),
      },
    ]);
    // The live one still saw only the ticket.
    expect(all.events.map((e) => e.type)).toEqual(['ticket.created']);
  });
});
