import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
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
    for (let i = 0; i < 119; i++) statuses.push((await app.call('GET', i % 2 ? '/v1/account' : '/v1/nowhere', { key: c.key })).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refused = await app.call('GET', '/v1/account', { key: c.key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ statusCode: 429, message: expect.stringMatching(/120 requests per minute/), error: 'Too Many Requests', code: 'RATE_LIMITED' });
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
});
