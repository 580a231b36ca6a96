import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { accountHolder, signIn, startOAuthApp } from '../helpers/oauth.ts';

let app: TestApp;
beforeAll(async () => {
  // A known port: the dashboard's sign-in checks its Origin against PUBLIC_BASE_URL.
  app = await startOAuthApp();
});
afterAll(() => app?.stop());

describe('rate limits: 120 requests per minute per credential', () => {
  it('every response carries the headers; the 121st request gets 429 with Retry-After', async () => {
    const c = await app.customer();
    const first = await app.call('GET', '/v1/account', { key: c.key });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('120');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    const nowSeconds = Date.now() / 1000;
    // X-RateLimit-Reset is Unix time in seconds, within the next minute.
    expect(reset).toBeGreaterThan(nowSeconds);
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 61);

    const statuses: number[] = [];
    for (let i = 0; i < 119; i++)
      statuses.push((await app.call('GET', i % 2 ? '/v1/account' : '/v1/nowhere', { key: c.key })).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refused = await app.call('GET', '/v1/account', { key: c.key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      statusCode: 429,
      message: expect.stringMatching(/120 requests per minute/),
      error: 'Too Many Requests',
      code: 'RATE_LIMITED',
    });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    // GraphQL shares the same budget.
    const viaGraphql = await gql(app, '{ account { id } }', { key: c.key });
    expect(viaGraphql.status).toBe(429);

    // Another credential of the same account has its own budget.
    const key2 = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] });
    const other = await app.call('GET', '/v1/account', { key: key2.body.key });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('errors carry the headers too (401 is counted per client address)', async () => {
    const res = await app.call('GET', '/v1/account');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('30 keys of one account do not buy 30 budgets: the account ceiling (600) refuses every key, REST, GraphQL, MCP and conditional reads alike; headers show the tighter limit', {
    timeout: 60_000,
  }, async () => {
    const c = await app.customer();
    const other = await app.customer();
    const keys: { id: string; key: string }[] = [];
    for (let i = 0; i < 30; i++)
      keys.push(
        (await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] })).body,
      );

    // Fresh: the key's own budget is the tighter one.
    const first = await app.call('GET', '/v1/account', { key: keys[0].key });
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([
      '120',
      '119',
    ]);
    // A 304 spends nothing, from either budget.
    const etag = first.headers.get('etag')!;
    const notModified = await app.call('GET', '/v1/account', { key: keys[0].key, headers: { 'If-None-Match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('x-ratelimit-remaining')).toBe('119');

    for (let round = 0; round < 19; round++)
      for (const k of keys) expect((await app.call('GET', '/v1/account', { key: k.key })).status).toBe(200);
    // 571 spent: the account (29 left) is now tighter than any key (100 or 101 left).
    const tight = await app.call('GET', '/v1/account', { key: keys[1].key });
    expect([tight.headers.get('x-ratelimit-limit'), tight.headers.get('x-ratelimit-remaining')]).toEqual(['600', '28']);
    for (let i = 0; i < 28; i++)
      expect((await app.call('GET', '/v1/account', { key: keys[2 + i].key })).status).toBe(200);

    const refused = await app.call('GET', '/v1/account', { key: keys[0].key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      statusCode: 429,
      message: expect.stringMatching(/account-wide rate limit .*600 requests per minute/),
      error: 'Too Many Requests',
      code: 'RATE_LIMITED',
    });
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual([
      '600',
      '0',
    ]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await gql(app, '{ account { id } }', { key: keys[3].key })).status).toBe(429);
    expect(
      (await app.call('GET', '/v1/account', { key: keys[4].key, headers: { 'If-None-Match': etag } })).status,
    ).toBe(429);
    const mcp = await app.call('POST', '/mcp', {
      key: keys[5].key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'account_get', arguments: {} } },
      headers: { Accept: 'application/json, text/event-stream', 'X-MCP-Toolsets': 'account' },
    });
    expect(mcp.status).toBe(429);
    // Listing spends no request point (docs/REFERENCE.md: MCP), so the spent ceiling does not refuse it.
    const listing = await app.call('POST', '/mcp', {
      key: keys[5].key,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(listing.status).toBe(200);
    const minted = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] });
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(429);
    // Refusals by the ceiling leave each key's own budget as it was.
    expect((await app.running.app.limits.peek('default', keys[0].id)).remaining).toBe(100);
    expect((await app.running.app.limits.peek('default', minted.body.id)).remaining).toBe(120);

    // Another account is untouched.
    const stranger = await app.call('GET', '/v1/account', { key: other.key });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('x-ratelimit-remaining')).toBe('119');
  });
});

describe('a console session: 600 requests a minute of its own, inside the account ceiling', () => {
  it("outlasts a key's 120, says 600 in its headers, and still spends from the account's 600", {
    timeout: 60_000,
  }, async () => {
    const holder = await accountHolder(app);
    const session = await signIn(app, holder);
    const asSession = () =>
      gql(app, '{ account { id } }', { headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf } });
    const first = await asSession();
    expect(first.status).toBe(200);
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([
      '600',
      '599',
    ]);
    // Past a key's budget without a refusal.
    for (let i = 0; i < 128; i++) expect((await asSession()).status).toBe(200);
    const last = await asSession();
    expect([last.status, last.headers.get('x-ratelimit-limit'), last.headers.get('x-ratelimit-remaining')]).toEqual([
      200,
      '600',
      '470',
    ]);
    // Every one of them was also the account's.
    expect((await app.running.app.limits.peek('account', holder.accountId)).remaining).toBe(470);

    // Keys of the same account spend the rest of the ceiling; then the session is refused by it too.
    const keys: string[] = [];
    for (let i = 0; i < 4; i++)
      keys.push(
        (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['account:read'] })).body
          .key,
      );
    for (const key of keys)
      for (let i = 0; i < 117; i++) expect((await app.call('GET', '/v1/account', { key })).status).toBe(200);
    // 470 − 4 × 117 = 2 left.
    for (let i = 0; i < 2; i++) expect((await asSession()).status).toBe(200);
    const refused = await asSession();
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].message).toMatch(/account-wide rate limit .*600 requests per minute/);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
