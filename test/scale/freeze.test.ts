import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freshDatabase, startTestApp, type Customer, type Json, type Reply, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/process.ts';

/**
 * A frozen dependency: its process stopped (SIGSTOP) or its network silent, connections open,
 * no answers. Unlike a refused port nothing fails by itself; every wait must have its own bound.
 * These tests measure that every request is answered within the bound while it lasts, that the
 * log says so once, and that all recovers when it thaws. They need the machine's PostgreSQL and
 * Redis (TEST_DATABASE_URL, TEST_REDIS_URL; CI sets both) and never pause those: Redis is a
 * throwaway server of the test's own, PostgreSQL is frozen through a proxy in this process.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** Answers of `calls` started together, each with how long it took. */
async function timed(calls: (() => Promise<Reply<Json>>)[]): Promise<{ res: Reply<Json>; ms: number }[]> {
  return Promise.all(
    calls.map(async (call) => {
      const started = Date.now();
      const res = await call();
      return { res, ms: Date.now() - started };
    }),
  );
}

const lines = (app: TestApp, msg: string) => app.logs.filter((l) => l.includes(`"msg":"${msg}"`)).length;

async function until(what: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await what()) return Date.now() - started;
    await sleep(100);
  }
  throw new Error(`not within ${ms} ms`);
}

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.stop().catch(() => undefined);
});

describe.skipIf(!process.env.TEST_REDIS_URL || !hasRedisServer)('Redis frozen (SIGSTOP)', () => {
  let redis: ChildProcess | undefined;
  afterAll(() => {
    redis?.kill('SIGCONT');
    redis?.kill('SIGKILL');
  });

  it('every request is answered within 1 s, rate limits fall back per instance, /readyz says degraded, the log says it once', async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await until(
      async () =>
        !!spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .includes('PONG'),
      5000,
    );
    const app = await startTestApp({ redisUrl: `redis://127.0.0.1:${port}` });
    apps.push(app);
    const c = await app.customer();
    expect((await app.call('GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { redis: 'ok' } });
    expect((await app.call('GET', '/v1/account', { key: c.key })).headers.get('x-ratelimit-remaining')).toBe('119');

    redis.kill('SIGSTOP');
    const during = await timed([
      ...Array.from({ length: 4 }, () => () => app.call('GET', '/v1/account', { key: c.key })),
      () => app.call('POST', '/v1/tickets', { key: c.key, body: { subject: 'Redis frozen', message: 'Still here?' } }),
      () => app.call('POST', '/graphql', { key: c.key, body: { query: '{ account { id } }' } }),
    ]);
    for (const { res, ms } of during) {
      expect(res.status).toBe(200);
      expect(ms).toBeLessThan(1000);
    }
    // The memory limiter counted them (each request spent a point there).
    expect(Number(during[3].res.headers.get('x-ratelimit-remaining'))).toBeLessThan(119);
    // Sequential requests too: each waits one command timeout at most, never for Redis.
    for (let i = 0; i < 3; i++) {
      const [{ res, ms }] = await timed([() => app.call('GET', '/v1/servers', { key: c.key })]);
      expect(res.status).toBe(200);
      expect(ms).toBeLessThan(1000);
    }
    const [ready] = await timed([() => app.call('GET', '/readyz')]);
    expect(ready.ms).toBeLessThan(1000);
    expect(ready.res.status).toBe(200);
    expect(ready.res.body).toMatchObject({ status: 'degraded', checks: { database: 'ok', redis: 'unreachable' } });
    expect(lines(app, 'redis unreachable')).toBe(1);

    redis.kill('SIGCONT');
    await until(async () => (await app.call('GET', '/readyz')).body.status === 'ready', 10_000);
    await until(async () => lines(app, 'redis reachable again') === 1, 5000);
    expect(lines(app, 'redis unreachable')).toBe(1);
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
  });
});

/** A TCP proxy to PostgreSQL that can freeze: it stops passing bytes, both ways, keeping every connection open. */
async function freezableProxy(targetPort: number) {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => to.write(chunk));
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      if (frozen) from.pause();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw() {
      frozen = false;
      for (const s of sockets) s.resume();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL frozen (no bytes either way, connections open)', () => {
  // A request's longest wait: one statement's client-side timeout (4.5 s, src/db/client.ts) and some slack.
  const BOUND_MS = 6500;
  let proxy: Awaited<ReturnType<typeof freezableProxy>> | undefined;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  afterAll(async () => {
    proxy?.thaw();
    await proxy?.close();
    await database?.drop();
  });

  it('every request gets its 503 with Retry-After within the bound, a retried key is not locked out, and all recovers on thaw', async () => {
    database = await freshDatabase();
    const url = new URL(database!.url);
    proxy = await freezableProxy(Number(url.port || 5432));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const app = await startTestApp({ databaseUrl: url.href, idempotencyLeaseMs: 2000 });
    apps.push(app);
    const c: Customer = await app.customer();
    const ticket = (key: string) =>
      app.call('POST', '/v1/tickets', {
        key: c.key,
        body: { subject: `Frozen ${key}`, message: 'Hello?' },
        headers: { 'Idempotency-Key': key },
      });
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
    expect((await ticket('warm')).status).toBe(200);

    proxy.freeze();
    const frozenAt = Date.now();
    const during = await timed([
      () => app.call('GET', '/v1/account', { key: c.key }),
      () => app.call('GET', '/v1/servers', { key: c.key }),
      () => app.call('GET', '/v1/tickets', { key: c.key }),
      () => ticket('frozen-1'),
      () => app.call('POST', '/graphql', { key: c.key, body: { query: '{ account { id } }' } }),
    ]);
    for (const { res, ms } of during) {
      expect(ms).toBeLessThan(BOUND_MS);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).not.toBeNull();
    }
    // Later requests, on new connections (the pool's connect timeout) or ones still held, are bounded too.
    for (let i = 0; i < 2; i++) {
      const [{ res, ms }] = await timed([() => ticket('frozen-2')]);
      expect(ms).toBeLessThan(BOUND_MS);
      expect(res.status).toBe(503);
    }
    const [ready] = await timed([() => app.call('GET', '/readyz')]);
    expect(ready.ms).toBeLessThan(3000);
    expect(ready.res.status).toBe(503);
    expect(ready.res.body).toMatchObject({ status: 'not ready', checks: { database: 'unreachable' } });
    // One line for the outage, no stack trace and no error line per failed request.
    expect(lines(app, 'database unreachable')).toBe(1);
    const since = app.logs.filter((l) => JSON.parse(l).time >= frozenAt);
    expect(since.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expect(since.filter((l) => l.includes('"stack"'))).toEqual([]);

    proxy.thaw();
    await until(async () => (await app.call('GET', '/readyz')).status === 200, 15_000);
    await until(async () => lines(app, 'database reachable again') === 1, 5000);
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
    // The keys used during the freeze run now (or within their short lease): one ticket each, no 24 h lockout.
    for (const key of ['frozen-1', 'frozen-2']) {
      let res = await ticket(key);
      for (let i = 0; i < 40 && res.status === 409; i++, await sleep(100)) res = await ticket(key);
      expect(res.status).toBe(200);
      expect(
        await app.running.app.prisma.ticket.count({ where: { accountId: c.accountId, subject: `Frozen ${key}` } }),
      ).toBe(1);
    }
  });
});
