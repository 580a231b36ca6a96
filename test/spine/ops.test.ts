import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('operations endpoints', () => {
  it('/healthz and /readyz', async () => {
    expect(await app.call('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await app.call('GET', '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', migrations: 'ok' } },
    });
  });

  it('/readyz reports 503 when the database is gone (and recovers on PostgreSQL)', async () => {
    const other = await startTestApp();
    try {
      if (other.running.app.db.kind === 'postgresql') {
        const name = new URL(other.running.app.config.databaseUrl!).pathname.slice(1);
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        const down = await other.call('GET', '/readyz');
        expect(down.status).toBe(503);
        expect(down.body.checks.database).toBe('unreachable');
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
        await admin.end();
        expect((await other.call('GET', '/readyz')).status).toBe(200);
      } else {
        await other.running.app.db.close();
        const res = await other.call('GET', '/readyz');
        expect(res.status).toBe(503);
        expect(res.body.checks.database).toBe('unreachable');
      }
    } finally {
      await other.stop().catch(() => undefined);
    }
  });

  it('/metrics counts requests by operation and status, with latency', async () => {
    const c = await app.customer();
    await app.call('GET', '/v1/account', { key: c.key });
    await app.call('GET', '/v1/servers/srv_missing', { key: c.key });
    const text = (await app.call('GET', '/metrics', { key: ADMIN_TOKEN })).text;
    expect(text).toMatch(/http_requests_total\{operation="account",method="GET",status="200"\} 1/);
    expect(text).toMatch(/http_requests_total\{operation="server",method="GET",status="404"\} 1/);
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.1",operation="account",method="GET",status="200"\} \d/,
    );
    expect(text).toMatch(/process_resident_memory_bytes/);
  });

  it('/metrics refuses a caller without the operator token, and says nothing', async () => {
    for (const key of [undefined, 'wrong-token', (await app.customer()).key]) {
      const res = await app.call('GET', '/metrics', { key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
      expect(res.text).not.toContain('http_requests_total');
    }
  });

  it('1,000 unauthenticated requests to random paths add no metric series', async () => {
    const series = async () =>
      (await app.call('GET', '/metrics', { key: ADMIN_TOKEN })).text
        .split('\n')
        .filter((l) => l.startsWith('http_requests_total{'));
    // One of each kind first, so their (fixed) series exist before counting.
    const paths = (i: number) => [
      `/x${i}-${Math.random().toString(36).slice(2)}`,
      `/v1/nope${i}`,
      `/oauth/nope${i}`,
      `/admin/nope${i}`,
      `/hooks/nope${i}`,
      `/docs/nope${i}`,
    ];
    for (const p of paths(0)) await app.call('GET', p);
    await series(); // /metrics counts itself once it has answered
    const before = await series();
    const queue = Array.from({ length: 1000 }, (_, i) => paths(i + 1)[i % 6]);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let p = queue.shift(); p !== undefined; p = queue.shift()) await app.call('GET', p);
      }),
    );
    const after = await series();
    // A status may newly appear (the anonymous budget answers 429), but no operation label does.
    const operations = (lines: string[]) => [...new Set(lines.map((l) => /operation="([^"]*)"/.exec(l)![1]))].sort();
    expect(operations(after)).toEqual(operations(before));
    expect(after.length).toBeLessThanOrEqual(before.length + 6);
    expect(after.join('\n')).not.toMatch(/operation="(x\d|nope)/);
  });

  it('logs are JSON lines with request ids and no secrets', async () => {
    const c = await app.customer();
    await app.call('GET', '/v1/account', { key: c.key, headers: { 'X-Request-Id': 'trace-42' } });
    const lines = app.logs.map((l) => JSON.parse(l));
    const line = lines.find((l) => l.requestId === 'trace-42' && l.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', path: '/v1/account', status: 200, operation: 'account' });
    const all = app.logs.join('\n');
    expect(all).not.toContain(c.key);
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).not.toMatch(/svc_[A-Za-z0-9]{40}/);
  });

  it('every response has a request id, the API revision and no X-Powered-By', async () => {
    const res = await app.call('GET', '/healthz');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('api-version')).toBe('1.16');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
