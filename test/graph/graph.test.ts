import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/http/graphql/graphql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting } from '../helpers/hosting.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, type Estate } from '../security/estate.ts';

/**
 * The connected graph (docs/REFERENCE.md: The graph), as a client sees it: everything reachable from
 * `account`, global ids that are REST's ids, cursor connections, per-field scopes, and /v1
 * bodies that are exactly what they were (the committed OpenAPI document's response schemas).
 */
let app: TestApp;
let receiver: Receiver;
let A: Estate;
let B: Estate;

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
  A = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  B = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  const inPool = await app.call('POST', `/v1/pools/${A.poolId}/servers`, {
    key: A.customer.key,
    body: { productId: 'std-2c-4g-50', label: 'Pool-Worker', osTemplate: 'ubuntu-24.04' },
  });
  if (inPool.status !== 200) throw new Error(inPool.text);
}, 180_000);
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const q = (query: string, key = A.customer.key, variables?: Record<string, unknown>) =>
  gql(app, query, { key, variables });

const WHOLE = `{
  account {
    id email
    servers(first: 10) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id label pool { id } ips { ip } snapshots { id } addons { id } } } }
    pools(first: 10) { nodes { id label servers(first: 10) { nodes { id pool { id } } } ips { ip assignedTo } } }
    hostingAccounts { nodes { id domain } }
    domains { nodes { id domain } }
    mailDomains(first: 10) { nodes { id domain mailboxes(first: 10) { nodes { id address domain { id } } } aliases(first: 10) { nodes { id source domain { domain } } } } }
    wallet { balanceUsdCents transactions(first: 3) { nodes { id amountUsdCents } pageInfo { hasNextPage } } }
    invoices { totalCount nodes { id number items { description amountUsdCents } } }
    tickets { nodes { id subject messages { author body } } }
    webhooks(first: 10) { nodes { id url deliveries(first: 10) { nodes { id eventType webhook { id } } } } }
    apiKeys { id prefix scopes }
    connectedApps { id name }
  }
}`;

describe('everything is reachable from the account', () => {
  it('one query reaches every area and the back edges', async () => {
    const res = await q(WHOLE);
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const a = res.body.data.account;
    expect(a.id).toBe(A.customer.accountId);
    expect(a.servers.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(A.serverId);
    expect(a.servers.totalCount).toBe(a.servers.edges.length);
    const server = a.servers.edges.find((e: { node: { id: string } }) => e.node.id === A.serverId).node;
    expect(server.snapshots.map((s: { id: string }) => s.id)).toContain(A.snapshotId);
    expect(server.ips.map((i: { ip: string }) => i.ip)).toContain(A.serverIp);
    expect(a.pools.nodes.map((p: { id: string }) => p.id)).toContain(A.poolId);
    const pool = a.pools.nodes.find((p: { id: string }) => p.id === A.poolId);
    expect(pool.ips.length).toBeGreaterThan(0);
    for (const s of pool.servers.nodes) expect(s.pool.id).toBe(A.poolId);
    expect(a.hostingAccounts.nodes.map((h: { id: string }) => h.id)).toContain(A.hostingId);
    expect(a.domains.nodes.map((d: { id: string }) => d.id)).toContain(A.domainId);
    const mail = a.mailDomains.nodes.find((d: { id: number }) => d.id === A.mailDomainId);
    expect(mail.mailboxes.nodes.map((m: { id: number }) => m.id)).toContain(A.mailboxId);
    for (const m of mail.mailboxes.nodes) expect(m.domain.id).toBe(A.mailDomainId);
    expect(mail.aliases.nodes.map((x: { id: number }) => x.id)).toContain(A.aliasId);
    expect(a.wallet.transactions.nodes.length).toBeGreaterThan(0);
    expect(a.invoices.nodes.map((i: { id: string }) => i.id)).toContain(A.invoiceId);
    expect(a.tickets.nodes.find((t: { id: string }) => t.id === A.ticketId).messages.length).toBeGreaterThan(0);
    const hook = a.webhooks.nodes.find((w: { id: string }) => w.id === A.webhookId);
    expect(hook.deliveries.nodes.map((d: { id: string }) => d.id)).toContain(A.deliveryId);
    for (const d of hook.deliveries.nodes) expect(d.webhook.id).toBe(A.webhookId);
    expect(a.apiKeys.length).toBeGreaterThan(0);
    expect(JSON.stringify(a)).not.toContain(B.serverId);
  });

  it('connections page with cursors in a stable order, and servers filter by status, pool and label', async () => {
    const all = (await q('{ account { servers(first: 100) { nodes { id label status } } } }')).body.data.account.servers
      .nodes;
    expect(all.length).toBeGreaterThan(1);
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } = (
        await q(
          'query($after: String) { account { servers(first: 1, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } } }',
          A.customer.key,
          { after },
        )
      ).body.data.account.servers;
      ids.push(...page.nodes.map((n) => n.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(ids).toEqual(all.map((s: { id: string }) => s.id));
    expect(ids).toEqual([...ids].sort().reverse());
    const inPool = (await q(`{ account { servers(poolId: "${A.poolId}") { nodes { id pool { id } } } } }`)).body.data
      .account.servers.nodes;
    expect(inPool.length).toBeGreaterThan(0);
    for (const s of inPool) expect(s.pool.id).toBe(A.poolId);
    const label = all[0].label as string;
    const byLabel = (await q(`{ account { servers(search: "${label.slice(1).toUpperCase()}") { nodes { label } } } }`))
      .body.data.account.servers.nodes;
    expect(byLabel.every((s: { label: string }) => s.label.toLowerCase().includes(label.slice(1).toLowerCase()))).toBe(
      true,
    );
    expect(byLabel.length).toBeGreaterThan(0);
    const running = (await q('{ account { servers(status: "running") { nodes { status } } } }')).body.data.account
      .servers.nodes;
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((s: { status: string }) => s.status === 'running')).toBe(true);
    const bad = await q('{ account { servers(first: 0) { nodes { id } } } }');
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

describe('global object identification', () => {
  // Ids of A's that the estate does not name, as REST (or the API key's minting) shows them.
  const more = { txn: '', tmsg: '', ticketEvent: '', ptrEvent: '', hss: '' };
  beforeAll(async () => {
    const get = async (p: string) => (await app.call('GET', `/v1${p}`, { key: A.customer.key })).body;
    more.txn = (await get('/billing/wallet/transactions')).data[0].id;
    more.tmsg = (await get(`/tickets/${A.ticketId}`)).messages[0].id;
    // Events of two kinds needing different scopes, by the ids their webhook deliveries name.
    const ptr = await app.call('PUT', `/v1/servers/${A.serverId}/ips/${A.serverIp}/ptr`, {
      key: A.customer.key,
      body: { hostname: 'graph.example.com' },
    });
    expect(ptr.status, ptr.text).toBe(200);
    await app.running.app.runDueWork();
    const deliveries = (await get(`/webhooks/${A.webhookId}/deliveries?limit=100`)).data;
    more.ticketEvent = deliveries.find((d: { eventType: string }) => d.eventType === 'ticket.created').eventId;
    more.ptrEvent = deliveries.find((d: { eventType: string }) => d.eventType === 'server.ptr.changed').eventId;
    expect(
      (await app.call('POST', `/v1/hosting/${A.hostingId}/ssh-terminal/access`, { key: A.customer.key })).status,
    ).toBe(200);
    more.hss = (
      await app.call('POST', `/v1/hosting/${A.hostingId}/ssh-terminal/launch`, { key: A.customer.key })
    ).body.sessionId;
  });

  /** Every kind of Node: an id of A's and the scope reading it needs (an event's is its type's). */
  const kinds = (): Record<string, { id: string; scope: string }> => ({
    Server: { id: A.serverId, scope: 'servers:read' },
    Snapshot: { id: A.snapshotId, scope: 'servers:read' },
    Pool: { id: A.poolId, scope: 'servers:read' },
    HostingAccount: { id: A.hostingId, scope: 'hosting:read' },
    HostingBackup: { id: A.backupId, scope: 'hosting:manage' },
    HostingSshSession: { id: more.hss, scope: 'hosting:manage' },
    Domain: { id: A.domainId, scope: 'domains:read' },
    Invoice: { id: A.invoiceId, scope: 'billing:read' },
    WalletTransaction: { id: more.txn, scope: 'billing:read' },
    Ticket: { id: A.ticketId, scope: 'tickets:read' },
    TicketMessage: { id: more.tmsg, scope: 'tickets:read' },
    Webhook: { id: A.webhookId, scope: 'webhooks:read' },
    WebhookDelivery: { id: A.deliveryId, scope: 'webhooks:read' },
    ApiKey: { id: A.customer.keyId, scope: 'account:read' },
    Event: { id: more.ticketEvent, scope: 'tickets:read' },
  });
  const ids = () => Object.values(kinds()).map((k) => k.id);

  it('node(id) fetches every kind by the id REST uses', async () => {
    for (const [typename, { id }] of Object.entries(kinds())) {
      const res = await q(`{ node(id: "${id}") { __typename id } }`);
      expect(res.body, typename).toEqual({ data: { node: { __typename: typename, id } } });
    }
    const many = await q(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, A.customer.key, {
      ids: [A.serverId, 'srv_00000000000000000000000000', A.poolId],
    });
    expect(many.body.data.nodes).toEqual([{ id: A.serverId }, null, { id: A.poolId }]);
  });

  it('the new kinds read as their lists show them, and nodes(ids) mixing every kind keeps the order asked', async () => {
    const k = kinds();
    const txn = (await app.call('GET', '/v1/billing/wallet/transactions', { key: A.customer.key })).body.data[0];
    const res = await q(`{
      txn: node(id: "${k.WalletTransaction.id}") { ... on WalletTransaction { id amount_usd_cents: amountUsdCents balance_after_usd_cents: balanceAfterUsdCents kind description gateway reference created_at: createdAt } }
      msg: node(id: "${k.TicketMessage.id}") { ... on TicketMessage { author body } }
      evt: node(id: "${k.Event.id}") { ... on Event { type account data } }
      key: node(id: "${k.ApiKey.id}") { ... on ApiKey { prefix scopes } }
      hbk: node(id: "${k.HostingBackup.id}") { ... on HostingBackup { hostingId status } }
      hss: node(id: "${k.HostingSshSession.id}") { ... on HostingSshSession { expiresAt } }
    }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.txn).toEqual(txn);
    expect(res.body.data.msg).toEqual({ author: 'customer', body: 'Hello support' });
    expect(res.body.data.evt).toMatchObject({
      type: 'ticket.created',
      account: A.customer.accountId,
      data: { ticketId: A.ticketId },
    });
    expect(res.body.data.key.prefix).toBe(A.customer.key.slice(0, 12));
    expect(res.body.data.hbk).toEqual({ hostingId: A.hostingId, status: 'available' });
    expect(res.body.data.hss.expiresAt).toEqual(expect.any(String));

    const asked = [...ids()].reverse();
    asked.splice(3, 0, 'tmsg_00000000000000000000000000', 'evt_00000000000000000000000000');
    const many = await q(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, A.customer.key, { ids: asked });
    expect(many.body.errors).toBeUndefined();
    const typenameOf = new Map(Object.entries(kinds()).map(([t, { id }]) => [id, t]));
    expect(many.body.data.nodes).toEqual(
      asked.map((id) => (typenameOf.has(id) ? { __typename: typenameOf.get(id), id } : null)),
    );
  });

  it("another account's id reads exactly like a missing one: null", async () => {
    for (const id of ids()) {
      const foreign = await q(`{ node(id: "${id}") { id } }`, B.customer.key);
      const missing = await q(
        `{ node(id: "${id.replace(/_.*/, '_00000000000000000000000000')}") { id } }`,
        B.customer.key,
      );
      expect(foreign.body).toEqual({ data: { node: null } });
      expect(foreign.text).toBe(missing.text);
    }
  });

  // A server's attached add-on (sad_, as GET /v1/servers/:id shows it) and its addresses (ip_, graph-only ids).
  const serverParts = async (e: Estate) => {
    const server = (
      await q(`{ node(id: "${e.serverId}") { ... on Server { addons { id addonId } ips { id ip } } } }`, e.customer.key)
    ).body.data.node;
    const rest = (await app.call('GET', `/v1/servers/${e.serverId}`, { key: e.customer.key })).body;
    const addon = server.addons.find((a: { addonId: string }) => a.addonId === e.addonId);
    expect(rest.addons.map((a: { id: string }) => a.id)).toContain(addon.id);
    const ip = server.ips.find((i: { ip: string }) => i.ip === e.serverIp);
    return { addonId: addon.id as string, ipId: ip.id as string, ip: ip.ip as string };
  };

  it('node(id) fetches an attached add-on and a server address', async () => {
    const own = await serverParts(A);
    expect(own.addonId).toMatch(/^sad_/);
    expect(own.ipId).toMatch(/^ip_/);
    const addon = await q(`{ node(id: "${own.addonId}") { __typename id ... on AttachedAddon { addonId } } }`);
    expect(addon.body).toEqual({
      data: { node: { __typename: 'AttachedAddon', id: own.addonId, addonId: A.addonId } },
    });
    const ip = await q(`{ node(id: "${own.ipId}") { __typename id ... on ServerIp { ip } } }`);
    expect(ip.body).toEqual({ data: { node: { __typename: 'ServerIp', id: own.ipId, ip: A.serverIp } } });
    const many = await q(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, A.customer.key, {
      ids: [own.ipId, own.addonId, 'ip_00000000000000000000000000'],
    });
    expect(many.body.data.nodes).toEqual([{ id: own.ipId }, { id: own.addonId }, null]);
  });

  it("another account's add-on or address reads as null", async () => {
    const theirs = await serverParts(B);
    for (const id of [theirs.addonId, theirs.ipId]) {
      expect((await q(`{ node(id: "${id}") { id } }`)).body).toEqual({ data: { node: null } });
      expect((await q(`{ node(id: "${id}") { id } }`, B.customer.key)).body).toEqual({ data: { node: { id } } });
    }
  });

  it("a key without servers:read: an add-on's or an address's id is the root field's FORBIDDEN", async () => {
    const own = await serverParts(A);
    const key = (
      await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, { scopes: ['billing:read'] })
    ).body.key;
    const root = await q(`{ server(id: "${A.serverId}") { id } }`, key);
    expect(root.body.errors[0].extensions.code).toBe('FORBIDDEN');
    for (const id of [own.addonId, own.ipId]) {
      const res = await q(`{ node(id: "${id}") { id } }`, key);
      expect(res.body.data.node).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(res.body.errors[0].message).toBe(root.body.errors[0].message);
    }
  });

  it("a credential lacking a kind's scope gets that scope's FORBIDDEN, one holding it alone reads the kind", async () => {
    const withScopes = async (scopes: string[]) =>
      (await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, { scopes })).body.key as string;
    const mailOnly = await withScopes(['mail:read']);
    const only = new Map<string, string>();
    for (const [typename, { id, scope }] of Object.entries(kinds())) {
      const refused = await q(`{ node(id: "${id}") { id } }`, mailOnly);
      expect(refused.body.data, typename).toEqual({ node: null });
      expect(refused.body.errors[0], typename).toMatchObject({
        path: ['node'],
        message: `This credential lacks the scope "${scope}".`,
        extensions: { code: 'FORBIDDEN' },
      });
      if (!only.has(scope)) only.set(scope, await withScopes([scope]));
      expect((await q(`{ node(id: "${id}") { id } }`, only.get(scope))).body, typename).toEqual({
        data: { node: { id } },
      });
    }
    // Under nodes(ids), the refusal stays at its index and the others resolve.
    const many = await q(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, only.get('tickets:read'), {
      ids: [A.ticketId, A.invoiceId, more.tmsg],
    });
    expect(many.body.data.nodes).toEqual([{ id: A.ticketId }, null, { id: more.tmsg }]);
    expect(many.body.errors).toHaveLength(1);
    expect(many.body.errors[0]).toMatchObject({ path: ['nodes', 1], extensions: { code: 'FORBIDDEN' } });
  });

  it("an event needs its own kind's read scope", async () => {
    const key = (
      await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, { scopes: ['servers:read'] })
    ).body.key;
    const ptr = await q(`{ node(id: "${more.ptrEvent}") { __typename ... on Event { type data } } }`, key);
    expect(ptr.body).toEqual({
      data: {
        node: {
          __typename: 'Event',
          type: 'server.ptr.changed',
          data: { serverId: A.serverId, ip: A.serverIp, ptr: 'graph.example.com' },
        },
      },
    });
    const ticket = await q(`{ node(id: "${more.ticketEvent}") { id } }`, key);
    expect(ticket.body.data.node).toBeNull();
    expect(ticket.body.errors[0]).toMatchObject({
      message: 'This credential lacks the scope "tickets:read".',
      extensions: { code: 'FORBIDDEN' },
    });
    expect((await q('{ node(id: "evt_00000000000000000000000000") { id } }', key)).body).toEqual({
      data: { node: null },
    });
  });

  it('a revoked API key and an ended browser-SSH session read as null', async () => {
    const minted = (
      await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, { scopes: ['servers:read'] })
    ).body;
    expect((await q(`{ node(id: "${minted.id}") { id } }`)).body).toEqual({ data: { node: { id: minted.id } } });
    expect((await app.admin('DELETE', `/admin/accounts/${A.customer.accountId}/api-keys/${minted.id}`)).status).toBe(
      200,
    );
    expect((await q(`{ node(id: "${minted.id}") { id } }`)).body).toEqual({ data: { node: null } });
    // Another customer's hosting, so A's live session stays live for the other cases.
    const c = await app.customer();
    const hostingId = await activeHosting(app, c);
    expect((await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/access`, { key: c.key })).status).toBe(200);
    const first = (await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/launch`, { key: c.key })).body
      .sessionId;
    expect((await q(`{ node(id: "${first}") { id } }`, c.key)).body).toEqual({ data: { node: { id: first } } });
    const second = (await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/launch`, { key: c.key })).body
      .sessionId;
    expect((await q(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, c.key, { ids: [first, second] })).body).toEqual({
      data: { nodes: [null, { id: second }] },
    });
  });

  it("a kind the credential's scopes cannot read: the root field's FORBIDDEN", async () => {
    const key = (await app.customer({ scopes: ['servers:read'] })).key;
    const own = await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, {
      scopes: ['servers:read'],
    });
    const invoice = await q(`{ node(id: "${A.invoiceId}") { id } }`, own.body.key);
    const root = await q(`{ invoice(id: "${A.invoiceId}") { id } }`, own.body.key);
    expect(invoice.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(invoice.body.errors[0].message).toBe(root.body.errors[0].message);
    expect((await q(`{ node(id: "${A.serverId}") { id } }`, own.body.key)).body.data.node).toEqual({ id: A.serverId });
    expect((await q(`{ node(id: "${A.serverId}") { id } }`, key)).body.data.node).toBeNull();
  });
});

describe('scopes per field', () => {
  it('a servers:read-only key gets account { servers } and a FORBIDDEN error on account { invoices }, with the rest of the data', async () => {
    const key = (
      await app.admin('POST', `/admin/accounts/${A.customer.accountId}/api-keys`, { scopes: ['servers:read'] })
    ).body.key;
    const res = await q('{ account { id servers { nodes { id } } invoices { nodes { id } } } }', key);
    expect(res.body.data.account.servers.nodes.map((s: { id: string }) => s.id)).toContain(A.serverId);
    expect(res.body.data.account.invoices).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      path: ['account', 'invoices'],
      message: 'This credential lacks the scope "billing:read".',
      extensions: { code: 'FORBIDDEN' },
    });
  });
});

describe('REST stays as it is', () => {
  const openapi = JSON.parse(fs.readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8'));
  const component = (ref: string) => openapi.components.schemas[ref.replace('#/components/schemas/', '')];
  const responseKeys = (path: string) => {
    let schema = openapi.paths[path].get.responses['200'].content['application/json'].schema;
    if (schema.$ref) schema = component(schema.$ref);
    return Object.keys(schema.properties).sort();
  };
  const itemKeys = (path: string) => {
    const list = component(openapi.paths[path].get.responses['200'].content['application/json'].schema.$ref);
    return Object.keys(component(list.properties.data.items.$ref).properties).sort();
  };

  it('GET /v1/account, /v1/servers, /v1/servers/:id, /v1/pools/:id and /v1/mail/domains answer exactly the documented keys (no edges)', async () => {
    const get = async (p: string) => (await app.call('GET', `/v1${p}`, { key: A.customer.key })).body;
    expect(Object.keys(await get('/account')).sort()).toEqual(responseKeys('/account'));
    const servers = await get('/servers');
    expect(Object.keys(servers.data[0]).sort()).toEqual(itemKeys('/servers'));
    expect(Object.keys(await get(`/servers/${A.serverId}`)).sort()).toEqual(responseKeys('/servers/{id}'));
    expect(Object.keys(await get(`/pools/${A.poolId}`)).sort()).toEqual(responseKeys('/pools/{id}'));
    expect(Object.keys((await get('/mail/domains')).data[0]).sort()).toEqual(itemKeys('/mail/domains'));
    expect(responseKeys('/servers/{id}')).not.toContain('pool');
    expect(itemKeys('/mail/domains')).not.toContain('mailboxes');
  });

  it("a server's addresses keep their REST keys: the graph's ip_ id stays out of /v1", async () => {
    const ips = (await app.call('GET', `/v1/servers/${A.serverId}/ips`, { key: A.customer.key })).body.data;
    expect(Object.keys(ips[0]).sort()).toEqual(itemKeys('/servers/{id}/ips'));
    expect(itemKeys('/servers/{id}/ips')).not.toContain('id');
    const server = (await app.call('GET', `/v1/servers/${A.serverId}`, { key: A.customer.key })).body;
    expect(Object.keys(server.ips[0])).not.toContain('id');
  });
});

describe('cost of connections', () => {
  it('refuses first: 1000 at three levels with a clear 400 before anything runs', async () => {
    const res = await q(
      '{ account { webhooks(first: 1000) { nodes { deliveries(first: 1000) { nodes { webhook { deliveries(first: 1000) { nodes { id } } } } } } } } }',
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(
      new RegExp(`cost limit of ${GRAPHQL_LIMITS.maxPagedCost} for pages exceeded.*first`),
    );
    // Through a variable as well, for the same document that passed with small pages: its cost follows each request's variables.
    const document =
      'query($n: Int) { account { pools(first: $n) { nodes { servers(first: $n) { nodes { pool { servers(first: $n) { nodes { id } } } } } } } } }';
    expect((await q(document, A.customer.key, { n: 2 })).status).toBe(200);
    const viaVariable = await q(document, A.customer.key, { n: 1000 });
    expect(viaVariable.status).toBe(400);
  });

  it('a reasonable nested query passes', async () => {
    const res = await q(
      '{ account { servers(first: 100) { nodes { id label status pool { id label } ips { ip ptr } snapshots { id name } addons { id type } } } pools(first: 20) { nodes { id servers(first: 50) { nodes { id } } } } } }',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });
});
