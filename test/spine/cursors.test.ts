import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolCatalog } from '../../src/mcp/catalog.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, type Estate } from '../security/estate.ts';
import { argsFor, documentFor, restRequest, type Args } from '../security/requests.ts';

/**
 * docs/REFERENCE.md (Pagination): a list answers only the cursors it issued. Every list operation with a
 * `cursor` argument, generated from the metadata, refuses a malformed cursor and an id of
 * another kind with 400 naming `cursor`, on REST, GraphQL and MCP; its own cursor still pages.
 */
const schema = getSchema();
// A password-session operation answers every key 403 (test/account/settings.test.ts pages it with a session).
const paged = listOperations(restView(schema)).filter(
  (op) => op.field.args.some((a) => a.name === 'cursor') && !op.meta.caller,
);
const MESSAGE = 'cursor must be the nextCursor of a previous page.';
const REFUSAL = { statusCode: 400, error: 'Bad Request', code: 'BAD_REQUEST', param: 'cursor', message: MESSAGE };

let app: TestApp;
let receiver: Receiver;
let E: Estate;

const rest = (op: Operation, args: Args) => {
  const req = restRequest(op, args);
  return app.call(req.method, req.url, { key: E.customer.key });
};
/** A cursor that is a real id, but of another list's kind (a server's id, or a pool's on the server list). */
const otherKind = (op: Operation) => (op.path.startsWith('/servers') ? E.poolId : E.serverId);

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true });
  receiver = await startReceiver();
  E = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  // A second pool, so one string-id list surely has a next page.
  const res = await app.call('POST', '/v1/pools', {
    key: E.customer.key,
    body: { productId: 'pool-fra1', label: 'second', vcpu: 2, ram2gb: 1, disk100: 1, ip16: 0 },
  });
  expect(res.status, res.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

describe('a cursor the list did not issue', () => {
  it('the lists that page are the ones expected (the delivery log and wallet included)', () => {
    expect(paged.map((op) => op.meta.rest)).toEqual(
      expect.arrayContaining([
        'GET /servers',
        'GET /pools',
        'GET /domains',
        'GET /hosting',
        'GET /tickets',
        'GET /webhooks',
        'GET /webhooks/:id/deliveries',
        'GET /billing/wallet/transactions',
        'GET /mail/domains',
      ]),
    );
    // The invoice list pages by number: it has no cursor to refuse (a `cursor` there is an unknown parameter).
    expect(paged.map((op) => op.meta.rest)).not.toContain('GET /billing/invoices');
  });

  it('REST: cursor=zzz and an id of another kind → 400 naming cursor; the list’s own cursor pages', async () => {
    const failures: string[] = [];
    let followed = 0;
    for (const op of paged) {
      const args = argsFor(op, E);
      for (const cursor of ['zzz', otherKind(op)]) {
        const res = await rest(op, { ...args, cursor });
        if (res.status !== 400 || !isDeepStrictEqual(res.body, REFUSAL))
          failures.push(`${op.meta.rest} cursor=${cursor}: ${res.status} ${res.text}`);
      }
      const first = await rest(op, { ...args, limit: 1 });
      expect(first.status, `${op.meta.rest}: ${first.text}`).toBe(200);
      if (!first.body.hasMore) continue;
      const next = await rest(op, { ...args, limit: 1, cursor: first.body.nextCursor });
      if (next.status !== 200 || next.body.data[0]?.id === first.body.data[0].id)
        failures.push(`${op.meta.rest} nextCursor: ${next.status} ${next.text}`);
      followed++;
    }
    expect(failures).toEqual([]);
    expect(followed).toBeGreaterThanOrEqual(2);
    // The invoice list pages by number: a cursor there is an unknown parameter, refused all the same.
    const invoices = await app.call('GET', '/v1/billing/invoices?cursor=zzz', { key: E.customer.key });
    expect(invoices.status, invoices.text).toBe(400);
    expect(invoices.body).toMatchObject({ code: 'BAD_REQUEST', param: 'cursor' });
  });

  it('GraphQL: each root list is a connection; a bad `after` → 400 naming after; its own endCursor pages', async () => {
    // The REST projection runs the same connection; over /graphql the cursor is GraphQL's `after`.
    const failures: string[] = [];
    for (const op of paged) {
      const query = documentFor(schema, op);
      const res = await gql(app, query, { key: E.customer.key, variables: { ...argsFor(op, E), cursor: 'zzz' } });
      const err = res.body.errors?.[0];
      if (
        err?.message !== 'after must be the endCursor of a previous page.' ||
        err.extensions?.code !== 'BAD_REQUEST' ||
        err.extensions?.status !== 400 ||
        err.extensions?.field !== 'after' ||
        res.body.data?.[op.name]
      )
        failures.push(`${op.name}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const page = (after: string | null) =>
      gql(app, 'query($a: String) { pools(first: 1, after: $a) { nodes { id } pageInfo { endCursor hasNextPage } } }', {
        key: E.customer.key,
        variables: { a: after },
      });
    const first = (await page(null)).body.data.pools;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = await page(first.pageInfo.endCursor);
    expect(next.body.errors, next.text).toBeUndefined();
    expect(next.body.data.pools.nodes[0].id).not.toBe(first.nodes[0].id);
    expect(failures).toEqual([]);
  });

  it('GraphQL connections: an `after` that is not an endCursor of theirs → 400 naming after; their own endCursor pages', async () => {
    const c = (field: string) => `${field}(after: $a) { nodes { id } }`;
    const connections = [
      c('servers'),
      c('pools'),
      c('domains'),
      c('hostingAccounts'),
      c('invoices'),
      c('mailDomains'),
      c('tickets'),
      c('webhooks'),
      `wallet { ${c('transactions')} }`,
      `pools { nodes { ${c('servers')} } }`,
      `mailDomains { nodes { ${c('mailboxes')} } }`,
      `mailDomains { nodes { ${c('aliases')} } }`,
      `webhooks { nodes { ${c('deliveries')} } }`,
    ];
    const failures: string[] = [];
    for (const selection of connections) {
      for (const after of ['zzz', `snap_${'0'.repeat(26)}`]) {
        const res = await gql(app, `query($a: String) { account { ${selection} } }`, {
          key: E.customer.key,
          variables: { a: after },
        });
        const err = res.body.errors?.[0];
        if (
          err?.message !== 'after must be the endCursor of a previous page.' ||
          err.extensions?.code !== 'BAD_REQUEST'
        )
          failures.push(`${selection} after=${after}: ${res.text.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
    const page = (after: string | null) =>
      gql(
        app,
        'query($a: String) { account { pools(first: 1, after: $a) { nodes { id } pageInfo { endCursor hasNextPage } } } }',
        { key: E.customer.key, variables: { a: after } },
      );
    const first = (await page(null)).body.data.account.pools;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = await page(first.pageInfo.endCursor);
    expect(next.body.errors, next.text).toBeUndefined();
    expect(next.body.data.account.pools.nodes[0].id).not.toBe(first.nodes[0].id);
  });

  it('MCP: every list tool answers the error object naming cursor', async () => {
    const client = await mcpClient(app.url, E.customer.key, { 'X-MCP-Toolsets': 'all' });
    try {
      const names = new Set(paged.map((op) => op.name));
      const tools = buildToolCatalog(schema).filter((t) => names.has(t.operation.name));
      expect(tools.length).toBe(paged.length);
      const failures: string[] = [];
      for (const tool of tools) {
        const res = await callTool(client, tool.name, { ...argsFor(tool.operation, E), cursor: 'zzz' });
        if (!res.isError || !isDeepStrictEqual(res.structuredContent, REFUSAL))
          failures.push(`${tool.name}: ${JSON.stringify(res).slice(0, 300)}`);
      }
      expect(failures).toEqual([]);
      // Code mode's schema search pages too: its cursors are offsets it issued.
      const code = await mcpClient(app.url, E.customer.key, { 'X-MCP-Toolsets': 'graphql' });
      const search = (args: Record<string, unknown>) =>
        callTool(code, 'graphql_schema_search', { query: 'server', limit: 2, ...args });
      for (const cursor of ['zzz', '0', '999999'])
        expect((await search({ cursor })).structuredContent, cursor).toEqual(REFUSAL);
      const first = await search({});
      expect((await search({ cursor: first.structuredContent.nextCursor })).isError).toBeFalsy();
      await code.close();
    } finally {
      await client.close();
    }
  });
});
