import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { DAY } from '../helpers/billing.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { advance, expectError, runningServer } from '../helpers/servers.ts';

// GET /account/summary (docs/REFERENCE.md: Account summary), black-box: an account with servers,
// a pool, a domain and invoices, read with keys of several scopes, over REST, GraphQL and MCP.

let app: TestApp;
let c: Customer;
let web: string;
let db: string;
let poolId: string;
const clients: Client[] = [];

const HIDDEN_ALL = [
  { section: 'wallet', scope: 'billing:read' },
  { section: 'invoices', scope: 'billing:read' },
  { section: 'renewals.servers', scope: 'servers:read' },
  { section: 'renewals.pools', scope: 'servers:read' },
  { section: 'renewals.domains', scope: 'domains:read' },
  { section: 'suspended.servers', scope: 'servers:read' },
  { section: 'suspended.pools', scope: 'servers:read' },
  { section: 'quotas.pools', scope: 'servers:read' },
];

const summary = (key: string, query = '') => app.call('GET', `/v1/account/summary${query}`, { key });

/**
 * The summary with its clock readings checked and set aside: the simulated clock runs on between
 * two calls, so `as_of` must lie between `before` and now, and the window end 30 days after it.
 */
function settled(body: Json, before: string) {
  const { as_of: asOf, ...rest } = body;
  expect(Date.parse(asOf)).toBeGreaterThanOrEqual(Date.parse(before));
  expect(Date.parse(asOf)).toBeLessThanOrEqual(Date.parse(now()));
  const { through, ...renewals } = rest.renewals;
  expect(through).toBe(plusDays(asOf, 30));
  return { ...rest, renewals };
}
const get = async (path: string) => (await app.call('GET', `/v1${path}`, { key: c.key })).body as Json;
async function keyWith(scopes: string[]) {
  const r = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes });
  expect(r.status, r.text).toBe(201);
  return r.body.key as string;
}
const now = () => app.running.app.clock.now().toISOString();
const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY * 1000).toISOString();

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 20_000 });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await app?.stop();
});

describe('GET /account/summary', () => {
  it('a fresh account: the wallet, no invoices, nothing renewing or suspended, nothing hidden', async () => {
    const before = now();
    const r = await summary(c.key);
    expect(r.status, r.text).toBe(200);
    expect(settled(r.body, before)).toEqual({
      wallet: { balance_usd_cents: 20_000, auto_recharge_enabled: false },
      invoices: {
        open_count: 0,
        open_total_usd_cents: 0,
        overdue_count: 0,
        overdue_total_usd_cents: 0,
        oldest_due_at: null,
      },
      renewals: { servers: [], pools: [], domains: [] },
      suspended: { servers: [], pools: [] },
      quotas: { pools: [] },
      hidden: [],
    });
  });

  it('servers, a pool and a domain ordered, an invoice past due: counts, totals and renewal dates', {
    timeout: 60_000,
  }, async () => {
    web = await runningServer(app, c, { productId: 'std-2c-4g-50', label: 'web-1' });
    db = await runningServer(app, c, { productId: 'std-2c-4g-50', label: 'db-1' });
    const suspend = await app.admin('POST', `/admin/servers/${db}/suspend`, { reason: 'abuse report #12' });
    expect(suspend.status, suspend.text).toBe(200);
    const pool = await app.call('POST', '/v1/pools', {
      key: c.key,
      body: { productId: 'pool-fra1', label: 'batch', vcpu: 2, ram2gb: 1, disk100: 1, ip16: 0 },
    });
    expect(pool.status, pool.text).toBe(200);
    poolId = pool.body.id;
    const member = await app.call('POST', `/v1/pools/${poolId}/servers`, {
      key: c.key,
      body: { productId: 'std-1c-2g-50', label: 'worker', osTemplate: 'debian-12', ipCount: 0 },
    });
    expect(member.status, member.text).toBe(200);
    // A domain registers for a year: outside the 30-day window.
    const domain = await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, {
      domain: `summary-${Date.now()}.com`,
      periodYears: 1,
      charge: true,
    });
    expect(domain.status, domain.text).toBe(201);
    // An operator invoice is due in 14 days; 15 days on it is overdue, and a second one is not yet.
    const late = await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
      items: [{ description: 'Migration work', amountUsdCents: 4500 }],
    });
    expect(late.status, late.text).toBe(201);
    await advance(app, 15 * DAY);
    const fresh = await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
      items: [{ description: 'Extra backup', amountUsdCents: 700 }],
    });
    expect(fresh.status, fresh.text).toBe(201);

    const before = now();
    const r = await summary(c.key);
    expect(r.status, r.text).toBe(200);
    const wallet = await get('/billing/wallet');
    const lateInvoice = await get(`/billing/invoices/${late.body.id}`);
    const [webRow, dbRow, poolRow] = [
      await get(`/servers/${web}`),
      await get(`/servers/${db}`),
      await get(`/pools/${poolId}`),
    ];
    expect(settled(r.body, before)).toEqual({
      wallet: { balance_usd_cents: wallet.balance_usd_cents, auto_recharge_enabled: false },
      invoices: {
        open_count: 2,
        open_total_usd_cents: 5200,
        overdue_count: 1,
        overdue_total_usd_cents: 4500,
        oldest_due_at: lateInvoice.dueAt,
      },
      renewals: {
        // Soonest first: web-1 ran first. A suspended server still renews (its renewal is what lifts a non-payment suspension).
        servers: [
          {
            type: 'server',
            id: web,
            name: 'web-1',
            renews_at: webRow.renewsAt,
            amount_usd_cents: 1200,
            period: 'month',
          },
          { type: 'server', id: db, name: 'db-1', renews_at: dbRow.renewsAt, amount_usd_cents: 1200, period: 'month' },
        ],
        pools: [
          {
            type: 'pool',
            id: poolId,
            name: 'batch',
            renews_at: poolRow.renewsAt,
            amount_usd_cents: 1600,
            period: 'month',
          },
        ],
        domains: [],
      },
      suspended: { servers: [{ type: 'server', id: db, name: 'db-1', reason: 'abuse report #12' }], pools: [] },
      // The pool's one server holds 1 of its 2 vCPUs, all its 2 GB of RAM and half its disk; no addresses.
      quotas: {
        pools: [
          {
            id: poolId,
            name: 'batch',
            status: 'active',
            servers: 1,
            used: { vcpu: 1, ramMb: 2048, diskGb: 50, ips: 0 },
            quota: { vcpu: 2, ramMb: 2048, diskGb: 100, ips: 0 },
          },
        ],
      },
      hidden: [],
    });
    // The quota use is the pool detail's usage against its quota.
    expect(r.body.quotas.pools[0].used).toEqual({
      vcpu: poolRow.usage.vcpu,
      ramMb: poolRow.usage.ramMb,
      diskGb: poolRow.usage.diskGb,
      ips: poolRow.usage.ips,
    });
    expect(r.body.quotas.pools[0].quota).toEqual(poolRow.quota);
    // Every renewal date is inside the window.
    for (const item of [...r.body.renewals.servers, ...r.body.renewals.pools])
      expect(Date.parse(item.renews_at)).toBeLessThanOrEqual(Date.parse(r.body.renewals.through));

    // GraphQL answers the same, in its own names.
    const g = await gql(
      app,
      '{ accountSummary { asOf wallet { balanceUsdCents } invoices { overdueCount oldestDueAt } renewals { servers { id renewsAt amountUsdCents } } suspended { servers { reason } } hidden { section } } }',
      { key: c.key },
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.accountSummary).toEqual({
      asOf: expect.any(String),
      wallet: { balanceUsdCents: r.body.wallet.balance_usd_cents },
      invoices: { overdueCount: 1, oldestDueAt: lateInvoice.dueAt },
      renewals: {
        servers: r.body.renewals.servers.map((s: Json) => ({
          id: s.id,
          renewsAt: s.renews_at,
          amountUsdCents: s.amount_usd_cents,
        })),
      },
      suspended: { servers: [{ reason: 'abuse report #12' }] },
      hidden: [],
    });
    expect(Date.parse(g.body.data.accountSummary.asOf)).toBeGreaterThanOrEqual(Date.parse(r.body.as_of));
  });

  it('a key with only account:read: every other section is null, and hidden names the scope for each', async () => {
    const key = await keyWith(['account:read']);
    const before = now();
    const r = await summary(key);
    expect(r.status, r.text).toBe(200);
    expect(settled(r.body, before)).toEqual({
      wallet: null,
      invoices: null,
      renewals: { servers: null, pools: null, domains: null },
      suspended: { servers: null, pools: null },
      quotas: { pools: null },
      hidden: HIDDEN_ALL,
    });
  });

  it('each kind shows with its own read scope: servers:read shows servers and pools, not billing or domains', async () => {
    const r = await summary(await keyWith(['account:read', 'servers:read']));
    expect(r.status, r.text).toBe(200);
    expect(r.body.wallet).toBeNull();
    expect(r.body.invoices).toBeNull();
    expect(r.body.renewals.servers.map((s: Json) => s.id)).toEqual([web, db]);
    expect(r.body.renewals.pools.map((p: Json) => p.id)).toEqual([poolId]);
    expect(r.body.renewals.domains).toBeNull();
    expect(r.body.suspended.servers.map((s: Json) => s.id)).toEqual([db]);
    expect(r.body.quotas.pools.map((p: Json) => p.id)).toEqual([poolId]);
    expect(r.body.hidden).toEqual(HIDDEN_ALL.filter((h) => h.scope !== 'servers:read'));
  });

  it('needs account:read itself: billing:read alone is a 403 naming it', async () => {
    const r = await summary(await keyWith(['billing:read']));
    expectError(r, 403, /account:read/);
  });

  it('takes no parameters: an unknown query parameter is a 400 naming it, as on every GET', async () => {
    const r = await summary(c.key, '?colour=red');
    expectError(r, 400, /Unknown query parameter "colour"/);
    const servers = await app.call('GET', '/v1/servers?colour=red', { key: c.key });
    expect({ ...r.body, requestId: undefined }).toEqual({ ...servers.body, requestId: undefined });
  });

  it("tenancy: another account's summary shows none of this account's items", async () => {
    const other = await app.customer({ walletBalanceUsdCents: 0 });
    const r = await summary(other.key);
    expect(r.body.renewals).toMatchObject({ servers: [], pools: [], domains: [] });
    expect(r.body.suspended).toEqual({ servers: [], pools: [] });
    expect(r.body.quotas).toEqual({ pools: [] });
    expect(r.body.invoices.open_count).toBe(0);
  });
});

describe('the account summary over MCP', () => {
  it('is the resource cloud-account:///v1/account/summary, whose read is the REST body', async () => {
    const client = await mcpClient(app.url, c.key);
    clients.push(client);
    const { resources } = await client.listResources();
    const listed = resources.find((r) => r.uri === 'cloud-account:///v1/account/summary');
    expect(listed).toMatchObject({ name: 'account_summary', mimeType: 'application/json' });
    const before = now();
    const read = await client.readResource({ uri: 'cloud-account:///v1/account/summary' });
    const rest = await summary(c.key);
    const [content] = read.contents;
    expect(settled(JSON.parse('text' in content ? content.text : ''), before)).toEqual(settled(rest.body, before));
    // The tool is in the account toolset, offered on request only: the default listing leaves it out.
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('account_summary');
  });

  it('a narrow key reads the same nulls and hints as over REST; the tool answers the same', async () => {
    const key = await keyWith(['account:read']);
    const client = await mcpClient(app.url, key, { 'X-MCP-Toolsets': 'account' });
    clients.push(client);
    const before = now();
    const read = await client.readResource({ uri: 'cloud-account:///v1/account/summary' });
    const [content] = read.contents;
    const body = settled(JSON.parse('text' in content ? content.text : ''), before);
    expect(body).toEqual(settled((await summary(key)).body, before));
    expect(body.hidden).toEqual(HIDDEN_ALL);
    const tool = await callTool(client, 'account_summary', {});
    expect(tool.isError).toBeFalsy();
    expect(settled(tool.structuredContent, before)).toEqual(body);
  });
});
