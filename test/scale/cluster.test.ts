import fs from 'node:fs';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startBalancer } from '../../src/cluster/balancer.ts';
import { freshDatabase } from '../helpers/app.ts';
import { subscribeEvents } from '../helpers/graphql-ws.ts';
import { freePort, spawnServer, waitReady, type ServerProcess } from '../helpers/process.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

/**
 * Production mode: three instances on loopback against one PostgreSQL database and one
 * Redis, as separate processes (`node bin/svc.js serve`), behind the round-robin balancer.
 */
const DB = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
if (!DB || !REDIS)
  console.log(
    'scale-out suite skipped: it needs TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL (Redis); .ci/run sets both.',
  );

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const ADMIN = 'cluster-admin-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(DB && REDIS)('three instances on one PostgreSQL and one Redis', () => {
  let db: { url: string; drop(): Promise<void> };
  let instances: ServerProcess[] = [];
  let balancer: http.Server;
  let lb: string;

  const env = () => ({
    DATABASE_URL: db.url,
    REDIS_URL: REDIS!,
    ADMIN_TOKEN: ADMIN,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    SIM_PROVISION_SECONDS: '60',
    LOG_LEVEL: 'warn',
    // As `npm run cluster` starts them: the balancer on loopback is the proxy they believe.
    TRUST_PROXY: 'loopback',
  });
  const call = async (
    base: string,
    method: string,
    path: string,
    opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(base + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const admin = (base: string, method: string, path: string, body?: unknown) =>
    call(base, method, path, { body, headers: { Authorization: `Bearer ${ADMIN}` } });
  let customerCount = 0;
  const customer = async (scopes?: string[]) => {
    const a = await admin(lb, 'POST', '/admin/accounts', {
      email: `c${++customerCount}-${Date.now()}@example.com`,
      name: 'C',
      country: 'DE',
      walletBalanceUsdCents: 100_000,
    });
    const k = await admin(lb, 'POST', `/admin/accounts/${a.body.id}/api-keys`, scopes ? { scopes } : {});
    return { accountId: a.body.id as string, key: k.body.key as string };
  };

  beforeAll(async () => {
    db = (await freshDatabase())!;
    // All three start at once: the migration lock lets exactly one apply the migrations.
    instances = await Promise.all([0, 1, 2].map(() => spawnServer(env())));
    await Promise.all(instances.map((i) => waitReady(i, 180_000)));
    const port = await freePort();
    balancer = await startBalancer({ port, targets: instances.map((i) => ({ host: '127.0.0.1', port: i.port })) });
    lb = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    balancer?.close();
    for (const i of instances) if (i.child.exitCode === null) i.child.kill('SIGTERM');
    await Promise.all(instances.map((i) => i.exited));
    for (const i of instances) fs.rmSync(i.dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('started together, they applied the migrations once', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const rows = (
      await client.query('SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY migration_name')
    ).rows;
    await client.end();
    const folders = fs
      .readdirSync(new URL('../../prisma/migrations', import.meta.url))
      .filter((f) => /^\d{14}_/.test(f));
    expect(rows.length).toBe(folders.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    for (const i of instances)
      expect((await call(i.url, 'GET', '/readyz')).body).toMatchObject({
        status: 'ready',
        checks: { database: 'ok', redis: 'ok' },
      });
  });

  it('200 requests with one key spread over the instances → exactly 120 allowed', async () => {
    const c = await customer(['account:read']);
    const statuses: number[] = [];
    const queue = Array.from({ length: 200 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift())
          statuses.push((await call(lb, 'GET', '/v1/account', { key: c.key })).status);
      }),
    );
    expect(statuses.filter((s) => s === 200).length).toBe(120);
    expect(statuses.filter((s) => s === 429).length).toBe(80);
    // Every instance served some of them: the balancer spreads round-robin.
    for (const i of instances) {
      const metrics = await (await fetch(`${i.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
      expect(metrics).toMatch(/http_requests_total\{operation="account",method="GET",status="(200|429)"\} \d+/);
    }
  });

  it('a subscriber on instance A receives an event produced on instance B; the clock and idempotency records are shared', async () => {
    const [a, b, c3] = instances;
    const c = await customer();
    const order = await admin(a.url, 'POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'x',
      os: 'linux',
      osTemplate: 'debian-12',
    });
    await admin(a.url, 'POST', '/admin/clock/advance', { seconds: 120 });
    // Instance C sees the advanced clock and the provisioned server.
    let status = '';
    for (let t = 0; t < 50 && status !== 'running'; t++, await sleep(100))
      status = (await call(c3.url, 'GET', `/v1/servers/${order.body.id}`, { key: c.key })).body.status;
    expect(status).toBe('running');

    const sub = await subscribeEvents(a.url, c.key, { types: ['server.power.changed'] });
    try {
      expect((await call(b.url, 'POST', `/v1/servers/${order.body.id}/power/stop`, { key: c.key })).status).toBe(200);
      const [event] = await sub.waitFor(1, 10_000);
      expect(event).toMatchObject({ type: 'server.power.changed', data: { serverId: order.body.id, action: 'stop' } });
    } finally {
      await sub.dispose();
    }

    const first = await call(a.url, 'POST', `/v1/servers/${order.body.id}/snapshots`, {
      key: c.key,
      body: { name: 'x' },
      headers: { 'Idempotency-Key': 'cross-1' },
    });
    const replay = await call(b.url, 'POST', `/v1/servers/${order.body.id}/snapshots`, {
      key: c.key,
      body: { name: 'x' },
      headers: { 'Idempotency-Key': 'cross-1' },
    });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(c3.url, 'POST', `/v1/servers/${order.body.id}/snapshots`, {
      key: c.key,
      body: { name: 'y' },
      headers: { 'Idempotency-Key': 'cross-1' },
    });
    expect(other.status).toBe(422);
  });

  describe('webhook deliveries across three workers', () => {
    let receiver: Receiver;
    let c: { accountId: string; key: string };
    beforeAll(async () => {
      receiver = await startReceiver();
      c = await customer();
      const hook = await call(lb, 'POST', '/v1/webhooks', {
        key: c.key,
        body: { url: `${receiver.url}/hook`, events: ['server.created'], description: 'cluster' },
      });
      expect(hook.status).toBe(200);
    });
    afterAll(() => receiver?.close());

    const order = async (n: number) => {
      const ids: string[] = [];
      const queue = Array.from({ length: n }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 15 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
            const r = await admin(lb, 'POST', `/admin/accounts/${c.accountId}/servers`, {
              productId: 'std-1c-2g-50',
              label: `s${i}`,
              os: 'linux',
              osTemplate: 'debian-12',
            });
            expect(r.status).toBe(201);
            ids.push(r.body.id);
          }
        }),
      );
      return ids;
    };
    const byDelivery = () => {
      const counts = new Map<string, { n: number; event: string }>();
      for (const r of receiver.received) {
        const id = String(r.headers['x-service-delivery-id']);
        counts.set(id, { n: (counts.get(id)?.n ?? 0) + 1, event: String(r.headers['x-service-event-id']) });
      }
      return counts;
    };
    const waitDelivered = async (n: number, ms: number) => {
      const until = Date.now() + ms;
      while (byDelivery().size < n && Date.now() < until) await sleep(200);
    };

    it('1,000 deliveries, each sent once per attempt the service counted, when the receiver always answers 200', async () => {
      await order(1000);
      await admin(instances[0].url, 'POST', '/admin/clock/advance', { seconds: 90 });
      await waitDelivered(1000, 180_000);
      const counts = byDelivery();
      expect(counts.size).toBe(1000);
      expect(new Set([...counts.values()].map((v) => v.event)).size).toBe(1000);
      // Three workers never send one attempt twice: a delivery arrives more than once only where
      // the service itself counted another attempt (an answer slower than the timeout on a loaded
      // machine: at-least-once, same delivery id). With none, each arrives exactly once.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const rows = (
        await client.query<{ id: string; attemptCount: number }>('SELECT id, "attemptCount" FROM "WebhookDelivery"')
      ).rows;
      await client.end();
      const attempts = new Map(rows.map((r) => [r.id, r.attemptCount]));
      for (const [id, { n }] of counts) expect(n, id).toBeLessThanOrEqual(attempts.get(id) ?? 0);
      const retried = rows.filter((r) => r.attemptCount > 1).length;
      expect(receiver.received.length).toBeLessThanOrEqual(1000 + rows.reduce((k, r) => k + r.attemptCount - 1, 0));
      if (!retried) expect(receiver.received.length).toBe(1000);
    });

    it('one instance SIGKILLed mid-run loses no event and no delivery', async () => {
      receiver.received.length = 0;
      const ids = await order(400);
      await admin(instances[0].url, 'POST', '/admin/clock/advance', { seconds: 90 });
      while (receiver.received.length < 60) await sleep(20);
      const victim = instances[2];
      victim.child.kill('SIGKILL');
      await victim.exited;
      // Attempts the dead instance had claimed come back when their lease (timeout + 30 s) runs out.
      await sleep(1000);
      await admin(instances[0].url, 'POST', '/admin/clock/advance', { seconds: 60 });
      await waitDelivered(400, 120_000);

      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const events = (
        await client.query(
          `SELECT id FROM "Event" WHERE "accountId" = $1 AND type = 'server.created' AND data->>'serverId' = ANY($2)`,
          [c.accountId, ids],
        )
      ).rows;
      const pending = (
        await client.query(
          `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "accountId" = $1 AND status <> 'succeeded'`,
          [c.accountId],
        )
      ).rows[0].n;
      await client.end();
      expect(events.length).toBe(400);
      expect(pending).toBe(0);
      const counts = byDelivery();
      const delivered = new Set([...counts.values()].map((v) => v.event));
      for (const e of events) expect(delivered.has(e.id)).toBe(true);
      // Duplicates, if any, are repeats of one delivery id for one event.
      const deliveriesPerEvent = new Map<string, Set<string>>();
      for (const [delivery, v] of counts)
        deliveriesPerEvent.set(v.event, (deliveriesPerEvent.get(v.event) ?? new Set()).add(delivery));
      expect([...deliveriesPerEvent.values()].every((s) => s.size === 1)).toBe(true);
      console.log(
        `SIGKILL run: ${events.length} events, ${counts.size} deliveries, ${receiver.received.length} receipts (${receiver.received.length - counts.size} repeats of an attempt cut by the kill)`,
      );
    });
  });
});
