import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

let app: TestApp;
let owner: Customer;
let other: Customer;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.customer();
  other = await app.customer();
  const order = await app.admin('POST', `/admin/accounts/${owner.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'a',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
});
afterAll(() => app?.stop());

const expectError = (res: { status: number; body: Json }, status: number, error: string) => {
  expect(res.status).toBe(status);
  const { param, ...rest } = res.body;
  expect(rest).toEqual({
    statusCode: status,
    message: expect.any(String),
    error,
    code: expect.stringMatching(/^[A-Z_]+$/),
  });
  if (param !== undefined) expect(param).toMatch(/^[\w.[\]-]+$/);
};

describe('API keys on REST', () => {
  it('missing credential → 401 with WWW-Authenticate', async () => {
    const res = await app.call('GET', '/v1/account');
    expectError(res, 401, 'Unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('malformed, unknown and non-Bearer credentials → 401', async () => {
    for (const authorization of [
      'Bearer nope',
      `Bearer svc_${'x'.repeat(10)}`,
      `Bearer svc_${'A'.repeat(40)}`,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      'Bearer',
    ]) {
      const res = await app.call('GET', '/v1/account', { headers: { Authorization: authorization } });
      expectError(res, 401, 'Unauthorized');
    }
  });

  it('an expired key → 401; a key that has not expired yet works', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    const key = await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, {
      scopes: ['account:read'],
      expiresAt: soon,
    });
    expect(key.status).toBe(201);
    expect((await app.call('GET', '/v1/account', { key: key.body.key })).status).toBe(200);
    await app.admin('POST', '/admin/clock/advance', { seconds: 120 });
    const res = await app.call('GET', '/v1/account', { key: key.body.key });
    expectError(res, 401, 'Unauthorized');
    expect(res.body.message).toMatch(/expired/);
  });

  it('a key lacking the scope → 403 naming the scope', async () => {
    const key = await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, { scopes: ['account:read'] });
    const res = await app.call('GET', '/v1/servers', { key: key.body.key });
    expectError(res, 403, 'Forbidden');
    expect(res.body.message).toContain('servers:read');
    expect((await app.call('GET', '/v1/account', { key: key.body.key })).status).toBe(200);
  });

  it("another account's server answers 404 exactly like a missing one", async () => {
    const foreign = await app.call('GET', `/v1/servers/${serverId}`, { key: other.key });
    const missing = await app.call('GET', '/v1/servers/srv_00000000000000000000000000', { key: other.key });
    expectError(foreign, 404, 'Not Found');
    expect(foreign.body).toEqual(missing.body);
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: owner.key })).status).toBe(200);
    // Writes are scoped the same way: nothing of the owner's server changes.
    expectError(await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: other.key }), 404, 'Not Found');
    const list = await app.call('GET', '/v1/servers', { key: other.key });
    expect(list.body.data).toEqual([]);
  });

  it('keys are stored only as SHA-256 hashes', async () => {
    const rows = await app.running.app.prisma.apiKey.findMany();
    for (const row of rows) {
      expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(owner.key);
    }
    expect(owner.key).toMatch(/^svc_[A-Za-z0-9]{40}$/);
  });

  it('default scopes exclude the opt-in ones', async () => {
    const key = await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, {});
    expect(key.status).toBe(201);
    expect(key.body.scopes).not.toContain('servers:destroy');
    expect(key.body.scopes).not.toContain('hosting:manage');
    expect(key.body.scopes).not.toContain('billing:write');
    expect(key.body.scopes).toContain('mail:read');
    const bad = await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, {
      scopes: ['servers:read', 'root'],
    });
    expectError(bad, 400, 'Bad Request');
    expect(bad.body.message).toContain('root');
  });
});

describe('the same rules on GraphQL', () => {
  it('no credential → 401 with extensions.code UNAUTHENTICATED', async () => {
    const res = await gql(app, '{ account { id } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('a bad credential → 401 before anything runs', async () => {
    const res = await gql(app, '{ account { id } }', { headers: { Authorization: `Bearer svc_${'B'.repeat(40)}` } });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('lacking the scope → 403 FORBIDDEN', async () => {
    const key = await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, { scopes: ['account:read'] });
    const res = await gql(app, '{ servers { nodes { id } } }', { key: key.body.key });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it("another account's server → 404 NOT_FOUND", async () => {
    const res = await gql(app, 'query($id: ID!) { server(id: $id) { id } }', {
      key: other.key,
      variables: { id: serverId },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const mine = await gql(app, 'query($id: ID!) { server(id: $id) { id label } }', {
      key: owner.key,
      variables: { id: serverId },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.data.server).toEqual({ id: serverId, label: 'a' });
  });
});
