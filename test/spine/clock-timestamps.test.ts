import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { advance } from '../helpers/servers.ts';

/** Row timestamps come from the simulated clock on every write path (src/db/timestamps.ts, raw SQL). */
let app: TestApp;
let c: Customer;

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  c = await app.customer({ scopes: ['webhooks:read', 'webhooks:write', 'billing:read', 'billing:write'] });
});
afterAll(() => app?.stop());

/** Within a second of the simulated time `at` (the request ran just after it was read). */
function near(value: string, at: Date) {
  const ms = new Date(value).getTime() - at.getTime();
  expect(ms, `${value} vs simulated ${at.toISOString()}`).toBeGreaterThanOrEqual(0);
  expect(ms, `${value} vs simulated ${at.toISOString()}`).toBeLessThan(1_000);
}

describe('timestamps after POST /admin/clock/advance', () => {
  it('an updated webhook and wallet carry the simulated time, never earlier than their creation; created rows too', async () => {
    const hook = await app.call('POST', '/v1/webhooks', {
      key: c.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(200);

    const later = await advance(app, 3 * 86_400);
    const patched = await app.call('PATCH', `/v1/webhooks/${hook.body.id}`, {
      key: c.key,
      body: { description: 'renamed' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(new Date(patched.body.updatedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(patched.body.createdAt).getTime(),
    );
    near(patched.body.updatedAt, later);
    near((await app.call('GET', `/v1/webhooks/${hook.body.id}`, { key: c.key })).body.updatedAt, later);

    // A Prisma update (auto-recharge) and a raw SQL one (a deposit moves the balance).
    const recharge = await app.call('PATCH', '/v1/billing/wallet/auto-recharge', {
      key: c.key,
      body: { enabled: true, threshold_usd_cents: 1000, amount_usd_cents: 2000 },
    });
    expect(recharge.status, recharge.text).toBe(200);
    near(recharge.body.updated_at, later);
    const evenLater = await advance(app, 2 * 86_400);
    const deposit = await app.admin('POST', `/admin/accounts/${c.accountId}/wallet/deposits`, {
      amountUsdCents: 500,
      gateway: 'card',
    });
    expect(deposit.status, deposit.text).toBe(201);
    near((await app.call('GET', '/v1/billing/wallet', { key: c.key })).body.updated_at, evenLater);

    // A create that names no createdAt (an API key) takes the simulated time too.
    const key = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] });
    expect(key.status, key.text).toBe(201);
    near(key.body.createdAt, evenLater);
  });
});
