import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/process.ts';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer) console.log('Redis outage test skipped: no redis-server binary on this machine.');
if (!process.env.TEST_DATABASE_URL) console.log('PostgreSQL outage test skipped: it needs TEST_DATABASE_URL.');

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.stop().catch(() => undefined);
});

describe.runIf(hasRedisServer)('losing Redis', () => {
  let redis: ChildProcess | undefined;
  const startRedis = async (port: number) => {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 50; i++) {
      if (
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .includes('PONG')
      )
        return;
      await sleep(100);
    }
    throw new Error('redis-server did not start');
  };
  afterAll(() => redis?.kill('SIGKILL'));

  it('keeps serving with per-instance limits, reports degraded readiness, and recovers when Redis returns', async () => {
    const port = await freePort();
    await startRedis(port);
    const app = await startTestApp({ redisUrl: `redis://127.0.0.1:${port}`, webhookAllowPrivate: true });
    apps.push(app);
    const c = await app.customer();
    expect((await app.call('GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { redis: 'ok' } });
    expect((await app.call('GET', '/v1/account', { key: c.key })).headers.get('x-ratelimit-remaining')).toBe('119');

    redis!.kill('SIGKILL');
    await sleep(300);
    const during = await app.call('GET', '/v1/account', { key: c.key });
    expect(during.status).toBe(200);
    // The memory insurance limiter counts while Redis is away.
    expect(Number(during.headers.get('x-ratelimit-remaining'))).toBeLessThan(120);
    // Writes still commit their events at full speed; the relay does not wait for Redis.
    const hook = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(hook.status).toBe(200);
    await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'r',
      os: 'linux',
      osTemplate: 'debian-12',
    });
    const started = Date.now();
    await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
    expect(Date.now() - started).toBeLessThan(2000);
    const deliveries = await app.running.app.prisma.webhookDelivery.count({ where: { accountId: c.accountId } });
    expect(deliveries).toBe(1);
    const ready = await app.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'degraded', checks: { database: 'ok', redis: 'unreachable' } });

    await startRedis(port);
    let status = '';
    for (let i = 0; i < 100 && status !== 'ready'; i++, await sleep(100))
      status = (await app.call('GET', '/readyz')).body.status;
    expect(status).toBe('ready');
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('losing PostgreSQL', () => {
  it('requests fail fast with 503 and Retry-After, readiness is 503, and both recover when it returns', async () => {
    const app = await startTestApp();
    apps.push(app);
    const c = await app.customer();
    const name = new URL(app.running.app.config.databaseUrl!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      for (const path of ['/v1/account', '/v1/servers']) {
        const started = Date.now();
        const res = await app.call('GET', path, { key: c.key });
        expect(Date.now() - started).toBeLessThan(4000);
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          statusCode: 503,
          message: expect.stringMatching(/database unreachable/),
          error: 'Service Unavailable',
          code: 'SERVICE_UNAVAILABLE',
        });
        expect(res.headers.get('retry-after')).toBe('5');
      }
      expect((await app.call('GET', '/readyz')).status).toBe(503);
      const gql = await app.call('POST', '/graphql', { key: c.key, body: { query: '{ account { id } }' } });
      expect(gql.status).toBe(503);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    expect((await app.call('GET', '/readyz')).status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
  });
});
