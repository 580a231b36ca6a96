import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let c: Customer;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp({ bodyLimitBytes: 4096 });
  c = await app.customer();
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'e',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
});
afterAll(() => app?.stop());

function expectShape(res: { status: number; body: Json }, status: number, error: string, message?: RegExp) {
  expect(res.status).toBe(status);
  const { param, ...rest } = res.body;
  expect(rest).toEqual({
    statusCode: status,
    message: expect.any(String),
    error,
    code: expect.stringMatching(/^[A-Z_]+$/),
  });
  if (param !== undefined) expect(param).toMatch(/^[\w.[\]-]+$/);
  if (message) expect(res.body.message).toMatch(message);
}

describe('every REST error is {statusCode, message, error}', () => {
  it('unknown route → 404', async () => {
    expectShape(await app.call('GET', '/v1/nothing-here', { key: c.key }), 404, 'Not Found', /No route/);
    expectShape(await app.call('GET', '/elsewhere', { key: c.key }), 404, 'Not Found');
    // sofa's own built-in routes are not reachable
    expectShape(await app.call('POST', '/v1/webhook', { key: c.key, body: {} }), 404, 'Not Found');
  });

  it('wrong method on a known path → 405 with Allow', async () => {
    const res = await app.call('DELETE', '/v1/account', { key: c.key });
    expectShape(res, 405, 'Method Not Allowed');
    expect(res.headers.get('allow')).toBe('GET, PATCH');
  });

  it('malformed JSON → 400', async () => {
    const res = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      raw: '{"name": "x",',
      headers: { 'Content-Type': 'application/json' },
    });
    expectShape(res, 400, 'Bad Request', /not valid JSON/);
  });

  it('wrong content type → 415', async () => {
    const res = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      raw: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectShape(res, 415, 'Unsupported Media Type');
  });

  it('body over the limit → 413', async () => {
    const res = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      body: { name: 'x', description: 'y'.repeat(5000) },
    });
    expectShape(res, 413, 'Payload Too Large', /4096 bytes/);
  });

  it('validation failures → 400 naming the field, and nothing changes', async () => {
    const missing = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      body: { description: 'no name' },
    });
    expectShape(missing, 400, 'Bad Request', /^name is required\.$/);
    const wrongType = await app.call('POST', `/v1/servers/${serverId}/snapshots`, { key: c.key, body: { name: 42 } });
    expectShape(wrongType, 400, 'Bad Request', /^name must be a string\.$/);
    const tooLong = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      body: { name: 'n'.repeat(65) },
    });
    expectShape(tooLong, 400, 'Bad Request', /^name must be/);
    const unknownField = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      body: { name: 'ok', size: 5 },
    });
    expectShape(unknownField, 400, 'Bad Request', /Unknown body field "size"/);
    const notObject = await app.call('POST', `/v1/servers/${serverId}/snapshots`, { key: c.key, body: ['name'] });
    expectShape(notObject, 400, 'Bad Request');
    const badEnum = await app.call('POST', `/v1/servers/${serverId}/power/explode`, { key: c.key });
    expectShape(badEnum, 400, 'Bad Request', /^action must be one of reboot, start, stop\.$/);
    const badLimit = await app.call('GET', '/v1/servers?limit=0', { key: c.key });
    expectShape(badLimit, 400, 'Bad Request', /limit/);
    const unknownQuery = await app.call('GET', '/v1/servers?colour=red', { key: c.key });
    expectShape(unknownQuery, 400, 'Bad Request', /colour/);
    const snapshots = await app.call('GET', `/v1/servers/${serverId}/snapshots`, { key: c.key });
    expect(snapshots.body.data).toEqual([]);
  });

  it('unexpected failures → 500 without internals, logged with the request id', async () => {
    const prisma = app.running.app.prisma;
    await prisma.$executeRawUnsafe('ALTER TABLE "ServerIp" RENAME TO "ServerIpGone"');
    try {
      const res = await app.call('GET', `/v1/servers/${serverId}`, {
        key: c.key,
        headers: { 'X-Request-Id': 'req-boom-1' },
      });
      expectShape(res, 500, 'Internal Server Error');
      expect(res.body.message).toBe('Internal server error.');
      expect(res.text).not.toMatch(/ServerIp|prisma|stack|at \w+ \(/i);
      expect(res.headers.get('x-request-id')).toBe('req-boom-1');
      const logged = app.logs.map((l) => JSON.parse(l)).filter((l) => l.requestId === 'req-boom-1' && l.level >= 50);
      expect(logged.length).toBeGreaterThan(0);
      expect(JSON.stringify(logged)).toMatch(/ServerIp/);
    } finally {
      await prisma.$executeRawUnsafe('ALTER TABLE "ServerIpGone" RENAME TO "ServerIp"');
    }
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: c.key })).status).toBe(200);
  });

  it('the operator API speaks the same error shape', async () => {
    expectShape(await app.call('GET', '/admin/catalogue'), 401, 'Unauthorized');
    expectShape(
      await app.admin('POST', '/admin/accounts', { email: 'not-an-email', name: 'x', country: 'DE' }),
      400,
      'Bad Request',
      /email/,
    );
    expectShape(await app.admin('GET', '/admin/nope'), 404, 'Not Found');
    expectShape(await app.admin('GET', '/admin/accounts'), 405, 'Method Not Allowed');
  });
});
