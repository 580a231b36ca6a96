import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, confirmedCall, mcpClient } from '../helpers/mcp.ts';
import { advance, balance, events, expectError } from '../helpers/servers.ts';

/** Ordering a standalone server (API 1.16): the first month paid from the wallet, or nothing ordered. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const ORDER = { productId: 'std-2c-4g-50', label: 'web-7', osTemplate: 'debian-12' };
const MONTHLY = 1_200;

describe('GET /servers/catalogue', () => {
  it('lists the plans with their monthly prices and the OS templates, what POST /servers takes', async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const res = await app.call('GET', '/v1/servers/catalogue', { key: c.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.plans).toContainEqual({
      productId: 'std-2c-4g-50',
      family: 'std',
      name: expect.any(String),
      vcpu: 2,
      ramMb: 4096,
      diskGb: 50,
      monthlyUsdCents: MONTHLY,
    });
    expect(res.body.plans.every((p: { productId: string }) => !p.productId.startsWith('pool'))).toBe(true);
    expect(res.body.osTemplates).toContainEqual({ id: 'debian-12', os: 'linux', name: expect.any(String) });
  });
});

describe('POST /servers', () => {
  it('orders a server: provisioning, the first month invoiced and paid from the wallet, then running', async () => {
    const c = await app.customer({
      scopes: ['servers:read', 'servers:write', 'billing:read'],
      walletBalanceUsdCents: 5_000,
    });
    const res = await app.call('POST', '/v1/servers', { key: c.key, body: ORDER });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      server: { id: expect.stringMatching(/^srv_/), status: 'provisioning', label: 'web-7', osTemplate: 'debian-12' },
      invoiceId: expect.stringMatching(/^inv_/),
      chargedUsdCents: MONTHLY,
    });
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    const invoice = await app.call('GET', `/v1/billing/invoices/${res.body.invoiceId}`, { key: c.key });
    expect(invoice.body).toMatchObject({
      status: 'paid',
      paidWith: 'wallet',
      source: 'order',
      reference: res.body.server.id,
      totalUsdCents: MONTHLY,
    });
    await advance(app, 180);
    const server = await app.call('GET', `/v1/servers/${res.body.server.id}`, { key: c.key });
    expect(server.body).toMatchObject({ status: 'running', productId: 'std-2c-4g-50' });
    expect((await events(app, c)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['invoice.created', 'invoice.paid', 'server.created']),
    );
  });

  it('a short wallet orders nothing: 400, no server, no invoice, the balance untouched', async () => {
    const c = await app.customer({
      scopes: ['servers:read', 'servers:write', 'billing:read'],
      walletBalanceUsdCents: 1_000,
    });
    const res = await app.call('POST', '/v1/servers', { key: c.key, body: ORDER });
    expectError(res, 400, /Insufficient wallet balance.*nothing was ordered.*Top up the wallet/);
    expect(res.body.param).toBeUndefined();
    expect((await app.call('GET', '/v1/servers', { key: c.key })).body.data).toEqual([]);
    expect((await app.call('GET', '/v1/billing/invoices', { key: c.key })).body.total).toBe(0);
    expect(await balance(app, c)).toBe(1_000);
    expect(await events(app, c)).toEqual([]);
  });

  it('refuses a plan or template outside the catalogue and a bad label, naming each; needs servers:write', async () => {
    const c = await app.customer({ scopes: ['servers:read', 'servers:write'], walletBalanceUsdCents: 50_000 });
    const order = (body: object) => app.call('POST', '/v1/servers', { key: c.key, body: { ...ORDER, ...body } });
    expect((await order({ productId: 'pool-fra1' })).body).toMatchObject({ statusCode: 400, param: 'productId' });
    expect((await order({ osTemplate: 'plan9' })).body).toMatchObject({ statusCode: 400, param: 'osTemplate' });
    expect((await order({ label: '' })).body).toMatchObject({ statusCode: 400, param: 'label' });
    // A label is also the server's host name: the spec's error object, naming it.
    const spaced = await order({ label: 'bad label with spaces!!' });
    expectError(spaced, 400, /^label must be letters, digits, dots, hyphens and underscores/);
    expect(spaced.body).toMatchObject({ error: 'Bad Request', param: 'label' });
    expect((await order({ label: '-web' })).body).toMatchObject({ statusCode: 400, param: 'label' });
    expect((await app.call('GET', '/v1/servers', { key: c.key })).body.data).toEqual([]);
    expect(await balance(app, c)).toBe(50_000);
    const reader = await app.customer({ scopes: ['servers:read'], walletBalanceUsdCents: 50_000 });
    expectError(await app.call('POST', '/v1/servers', { key: reader.key, body: ORDER }), 403, /servers:write/);
  });

  it('GraphQL orders the same, the new server with its relations (no address before it is built)', async () => {
    const c = await app.customer({ scopes: ['servers:read', 'servers:write'], walletBalanceUsdCents: 5_000 });
    const res = await gql(
      app,
      `mutation { serverOrder(productId: "std-1c-2g-50", label: "db-1", osTemplate: "ubuntu-24.04") {
        server { id status osTemplate ips { ip } } chargedUsdCents } }`,
      { key: c.key },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.serverOrder).toMatchObject({
      server: { status: 'provisioning', osTemplate: 'ubuntu-24.04', ips: [] },
      chargedUsdCents: 600,
    });
    expect(await balance(app, c)).toBe(4_400);
  });
});

describe('the purchases MCP toolset', () => {
  it('is not offered by default; asked for, it lists its four tools and orders a server', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const plain = await mcpClient(app.url, c.key);
    const listed = (await plain.listTools()).tools.map((t) => t.name);
    expect(listed).not.toContain('server_order');
    expect(listed).not.toContain('invoice_pay');
    await plain.close();
    const buyer = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'purchases' });
    const tools = (await buyer.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['invoice_pay', 'server_order', 'servers_catalogue', 'wallet_deposit']);
    // It asks first, with the price (test/mcp/confirmation.test.ts), then orders.
    const quoted = await callTool(buyer, 'server_order', ORDER);
    expect(quoted.structuredContent).toMatchObject({
      statusCode: 428,
      quote: expect.stringMatching(/^Order std-2c-4g-50 for \$12\.00\/month/),
    });
    const ordered = await confirmedCall(buyer, 'server_order', ORDER);
    expect(ordered.isError).toBeFalsy();
    expect(ordered.structuredContent).toMatchObject({ server: { status: 'provisioning' }, chargedUsdCents: MONTHLY });
    await buyer.close();
  });
});
