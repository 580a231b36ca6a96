import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { balance, events, expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

let n = 0;
const unique = (tld = 'com') => `site${++n}-${Date.now().toString(36)}.${tld}`;

async function register(c: Customer, body: Record<string, unknown>) {
  const res = await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('registration through the operator API', () => {
  it('without charge: pending_payment with an open invoice; paying it registers the domain (domain.registered)', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 10_000 });
    const name = unique();
    const order = await register(c, { domain: name, periodYears: 2 });
    expect(order.domain).toMatchObject({
      id: expect.stringMatching(/^dom_/),
      domain: name,
      status: 'pending_payment',
      period_years: 2,
      registered_at: null,
      expires_at: null,
    });
    expect(order.invoice).toMatchObject({
      status: 'open',
      source: 'order',
      totalUsdCents: 2 * 1299,
      reference: order.domain.id,
      items: [{ description: `Domain registration ${name}, 2 years`, amountUsdCents: 2598 }],
    });
    expect(await events(app, c, 'domain.registered')).toEqual([]);
    expect(await balance(app, c)).toBe(10_000);
    expectError(
      await app.call('PATCH', `/v1/domains/${order.domain.id}`, { key: c.key, body: { auto_renew: false } }),
      409,
      /not registered yet/,
    );

    const pay = await app.admin('POST', `/admin/invoices/${order.invoice.id}/pay`, { gateway: 'card' });
    expect(pay.status, pay.text).toBe(200);
    const detail = await app.call('GET', `/v1/domains/${order.domain.id}`, { key: c.key });
    expect(detail.body).toMatchObject({
      status: 'active',
      registered_at: expect.any(String),
      expires_at: expect.any(String),
    });
    const years =
      new Date(detail.body.expires_at).getUTCFullYear() - new Date(detail.body.registered_at).getUTCFullYear();
    expect(years).toBe(2);
    expect((await events(app, c, 'domain.registered')).map((e) => e.data)).toEqual([
      { domainId: order.domain.id, domain: name, periodYears: 2, expiresAt: detail.body.expires_at },
    ]);
    expect(await balance(app, c)).toBe(10_000);
  });

  it('with "charge": true the wallet pays at once; a short wallet → 400 and nothing ordered; duplicates and bad input → 400', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 2000 });
    const name = unique('net');
    const order = await register(c, { domain: name, periodYears: 1, charge: true });
    expect(order.domain.status).toBe('active');
    expect(order.invoice).toMatchObject({ status: 'paid', paidWith: 'wallet', totalUsdCents: 1499 });
    expect(await balance(app, c)).toBe(501);
    expect(await events(app, c, 'domain.registered')).toHaveLength(1);
    const short = await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, {
      domain: unique(),
      periodYears: 1,
      charge: true,
    });
    expectError(short, 400, /Insufficient/);
    expect(await app.running.app.prisma.domain.count({ where: { accountId: c.accountId } })).toBe(1);
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: name, periodYears: 1 }),
      400,
      /already registered/,
    );
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: 'bad domain', periodYears: 1 }),
      400,
      /domain/,
    );
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: unique(), periodYears: 11 }),
      400,
      /periodYears/,
    );
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: unique('zz'), periodYears: 1 }),
      400,
      /\.zz/,
    );
  });
});

describe('customer domain operations', () => {
  it('list and detail with defaults; other accounts → 404; scopes enforced', async () => {
    const c = await app.customer();
    const a = await register(c, { domain: unique(), periodYears: 1, charge: true });
    const b = await register(c, { domain: unique('org'), periodYears: 1, charge: true });
    const list = await app.call('GET', '/v1/domains', { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([b.domain.id, a.domain.id]);
    expect(list.body.data[0]).toEqual({
      id: b.domain.id,
      domain: b.domain.domain,
      status: 'active',
      period_years: 1,
      auto_renew: true,
      transfer_lock: true,
      whois_privacy: true,
      nameservers: ['ns1.cloudhost.example', 'ns2.cloudhost.example'],
      registered_at: expect.any(String),
      expires_at: expect.any(String),
      created_at: expect.any(String),
    });
    const other = await app.customer();
    expectError(await app.call('GET', `/v1/domains/${a.domain.id}`, { key: other.key }), 404);
    expectError(
      await app.call('PATCH', `/v1/domains/${a.domain.id}`, { key: other.key, body: { auto_renew: false } }),
      404,
    );
    const reader = await app.customer({ scopes: ['domains:read'] });
    expectError(
      await app.call('PATCH', `/v1/domains/${a.domain.id}`, { key: reader.key, body: { auto_renew: false } }),
      403,
      /domains:write/,
    );
  });

  it('PATCH auto_renew, transfer_lock, whois_privacy and nameservers (2 to 13 valid host names)', async () => {
    const c = await app.customer();
    const { domain } = await register(c, { domain: unique(), periodYears: 1, charge: true });
    const patch = (body: unknown) => app.call('PATCH', `/v1/domains/${domain.id}`, { key: c.key, body });
    const res = await patch({
      auto_renew: false,
      transfer_lock: false,
      whois_privacy: false,
      nameservers: ['NS1.Example.net.', 'ns2.example.net'],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      auto_renew: false,
      transfer_lock: false,
      whois_privacy: false,
      nameservers: ['ns1.example.net', 'ns2.example.net'],
    });
    expect((await patch({ whois_privacy: true })).body).toMatchObject({
      whois_privacy: true,
      auto_renew: false,
      nameservers: ['ns1.example.net', 'ns2.example.net'],
    });
    expectError(await patch({ nameservers: ['ns1.example.net'] }), 400, /2 to 13/);
    expectError(
      await patch({ nameservers: Array.from({ length: 14 }, (_, i) => `ns${i}.example.net`) }),
      400,
      /2 to 13/,
    );
    expectError(await patch({ nameservers: ['ns1.example.net', 'not a host'] }), 400, /nameservers\[1\]/);
    expectError(await patch({ nameservers: ['ns1.example.net', 'NS1.example.net'] }), 400, /repeat/);
    expectError(await patch({ nameservers: ['ns1.example.net', '-bad.example.net'] }), 400, /nameservers\[1\]/);
    expectError(await patch({ auto_renew: 'no' }), 400);
    expectError(await patch({}), 400, /at least one/);
    expectError(await patch({ privacy: true }), 400, /privacy/);
    const thirteen = Array.from({ length: 13 }, (_, i) => `ns${i}.example.net`);
    expect((await patch({ nameservers: thirteen })).body.nameservers).toEqual(thirteen);
  });
});
