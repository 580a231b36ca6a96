import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../src/modules/oauth/service.ts';
import { ALL_SCOPES } from '../../src/scopes.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { accountHolder, dashboard, deviceTokens, signIn } from '../helpers/oauth.ts';
import { freePort } from '../helpers/process.ts';
import { advance } from '../helpers/servers.ts';

/**
 * The principal cache (docs/REFERENCE.md: Authentication): a credential resolved in the last few seconds
 * costs no query, and yet every change to it — revocation, scopes, expiry, sign-out — holds
 * from the very next request, and nothing is served past its expiry on the simulated clock.
 * With PostgreSQL (TEST_DATABASE_URL) a second instance on the same database (and Redis, with
 * TEST_REDIS_URL) shows the change made on one instance holds at once on the other.
 */
let app: TestApp;
/** SELECTs of credential rows, as the driver sent them. */
const credentialReads: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  app = await startTestApp(
    { port, publicBaseUrl: `http://127.0.0.1:${port}` },
    {
      onQuery: (sql) => {
        if (/^\s*SELECT/i.test(sql) && /"(ApiKey|OAuthToken|DashboardSession)"/.test(sql)) credentialReads.push(sql);
      },
    },
  );
});
afterAll(() => app?.stop());

const account = (key: string) => app.call('GET', '/v1/account', { key });
const servers = (key: string) => app.call('GET', '/v1/servers', { key });

async function patchKey(c: Customer, body: Record<string, unknown>) {
  const res = await app.admin('PATCH', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('one instance', () => {
  it('a credential used again within the TTL is not read from the database again', async () => {
    const c = await app.customer();
    credentialReads.length = 0;
    expect((await account(c.key)).status).toBe(200);
    const first = credentialReads.length;
    expect(first).toBe(1);
    for (let i = 0; i < 5; i++) expect((await account(c.key)).status).toBe(200);
    expect(credentialReads.length).toBe(first);
  });

  it('a key revoked by the operator, or in the dashboard, is refused by the next request', async () => {
    const c = await app.customer();
    expect((await account(c.key)).status).toBe(200);
    const revoked = await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`);
    expect(revoked.status, revoked.text).toBe(200);
    const refused = await account(c.key);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/revoked/);
    expect((await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`)).status).toBe(404);

    const holder = await accountHolder(app);
    const session = await signIn(app, holder);
    const minted = await dashboard(app, session, 'POST', '/keys', { name: 'to revoke' });
    expect(minted.status).toBe(201);
    expect((await account(minted.body.key)).status).toBe(200);
    expect((await dashboard(app, session, 'DELETE', `/keys/${minted.body.id}`)).status).toBe(200);
    expect((await account(minted.body.key)).status).toBe(401);
  });

  it('a scope change holds from the next request, narrowing and widening', async () => {
    const c = await app.customer();
    expect((await servers(c.key)).status).toBe(200);
    const narrowed = await patchKey(c, { scopes: ['account:read'] });
    expect(narrowed.scopes).toEqual(['account:read']);
    const refused = await servers(c.key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/servers:read/);
    expect((await account(c.key)).status).toBe(200);
    await patchKey(c, { scopes: [...ALL_SCOPES] });
    expect((await servers(c.key)).status).toBe(200);
    // Bad input changes nothing.
    expect(
      (await app.admin('PATCH', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`, { scopes: ['nope'] })).status,
    ).toBe(400);
    expect((await app.admin('PATCH', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`, { name: 'x' })).status).toBe(
      400,
    );
    expect((await servers(c.key)).status).toBe(200);
  });

  it('an API key is refused once the simulated clock passes its expiry, though it is cached', async () => {
    const c = await app.customer();
    const now = app.running.app.clock.now();
    await patchKey(c, { expiresAt: new Date(now.getTime() + 60_000).toISOString() });
    expect((await account(c.key)).status).toBe(200);
    expect((await account(c.key)).status).toBe(200);
    credentialReads.length = 0;
    await advance(app, 61);
    const refused = await account(c.key);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/expired/);
    // An expiry moved out again holds at once too.
    await patchKey(c, { expiresAt: null });
    expect((await account(c.key)).status).toBe(200);
  });

  it('an OAuth access token past its expiry is refused though cached; a disconnected app at once', async () => {
    const holder = await accountHolder(app);
    const session = await signIn(app, holder);
    const tokens = await deviceTokens(app, session, 'account:read');
    expect((await account(tokens.access_token)).status).toBe(200);
    credentialReads.length = 0;
    expect((await account(tokens.access_token)).status).toBe(200);
    expect(credentialReads).toEqual([]); // served from the cache
    await advance(app, ACCESS_TOKEN_TTL_SECONDS + 1);
    expect((await account(tokens.access_token)).status).toBe(401);

    // The password typed again (sudo mode) shows on the cached session at once.
    expect((await dashboard(app, session, 'POST', '/device/approve', { userCode: 'CCCC-CCCC' })).body.code).toBe(
      'SUDO_REQUIRED',
    );
    expect((await dashboard(app, session, 'POST', '/sudo', { password: holder.password })).status).toBe(200);
    const fresh = await deviceTokens(app, session, 'account:read');
    expect((await account(fresh.access_token)).status).toBe(200);
    const apps = await dashboard(app, session, 'GET', '/apps');
    for (const grant of apps.body.data)
      expect((await dashboard(app, session, 'DELETE', `/apps/${grant.id}`)).status).toBe(200);
    expect((await account(fresh.access_token)).status).toBe(401);
  });

  it('a dashboard session signed out is refused on /graphql by the next request', async () => {
    const holder = await accountHolder(app);
    const session = await signIn(app, holder);
    const query = () =>
      fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: session.cookie, 'X-CSRF-Token': session.csrf },
        body: JSON.stringify({ query: '{ account { id } }' }),
      });
    const before = await query();
    expect(before.status).toBe(200);
    expect((await before.json()).data.account.id).toBe(holder.accountId);
    expect((await dashboard(app, session, 'POST', '/sign-out')).status).toBe(200);
    expect((await query()).status).toBe(401);
  });
});

// Two instances need a shared database: PostgreSQL (PGlite is one process's).
const shared = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!shared)('two instances on one PostgreSQL database (and Redis, when given)', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await startTestApp({ databaseUrl: app.running.app.config.databaseUrl });
  });
  afterAll(() => b?.stop());
  const onB = (key: string, path = '/v1/account', headers: Record<string, string> = {}) =>
    b.call('GET', path, { key, headers });

  it('a key revoked on A is refused by the next request on B', async () => {
    const c = await app.customer();
    expect((await onB(c.key)).status).toBe(200);
    expect((await onB(c.key)).status).toBe(200);
    expect((await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`)).status).toBe(200);
    expect((await onB(c.key)).status).toBe(401);
  });

  it('a scope change on A holds on B from the next request', async () => {
    const c = await app.customer();
    expect((await onB(c.key, '/v1/servers')).status).toBe(200);
    await patchKey(c, { scopes: ['account:read'] });
    expect((await onB(c.key, '/v1/servers')).status).toBe(403);
  });

  it('one limit across both: 304s on either are free, 200s on either count', async () => {
    const c = await app.customer();
    const first = await app.call('GET', '/v1/account', { key: c.key });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
    const etag = first.headers.get('etag')!;
    for (let i = 0; i < 10; i++) {
      const r = await (i % 2
        ? app.call('GET', '/v1/account', { key: c.key, headers: { 'If-None-Match': etag } })
        : onB(c.key, '/v1/account', { 'If-None-Match': etag }));
      expect(r.status).toBe(304);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(process.env.TEST_REDIS_URL || i % 2 ? '119' : '120');
    }
    if (!process.env.TEST_REDIS_URL) return; // without Redis each instance counts alone
    expect((await onB(c.key)).headers.get('x-ratelimit-remaining')).toBe('118');
    expect((await app.call('GET', '/v1/account', { key: c.key })).headers.get('x-ratelimit-remaining')).toBe('117');
  });
});
