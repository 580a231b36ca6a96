import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLOutputType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolCatalog } from '../../src/mcp/catalog.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { proveDomain } from '../helpers/domains.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, type Estate } from '../security/estate.ts';
import { argsFor, restRequest, type Args } from '../security/requests.ts';

/**
 * Every list answers one envelope, `{ data, hasMore, nextCursor }` (docs/REFERENCE.md: Pagination),
 * generated from the operation metadata: a list read declared later is checked the moment
 * it exists. Lists that page walk whole with limit=1 and the cursors they hand out.
 */
const schema = getSchema();
const operations = listOperations(restView(schema));

const unwrap = (t: GraphQLOutputType) => (isNonNullType(t) ? t.ofType : t);
/** The envelope type: exactly data (a list), hasMore and nextCursor. */
const isEnvelope = (t: GraphQLOutputType) => {
  const named = getNamedType(t);
  if (isListType(unwrap(t)) || !isObjectType(named)) return false;
  const fields = named.getFields();
  return Object.keys(fields).sort().join() === 'data,hasMore,nextCursor' && isListType(unwrap(fields.data.type));
};
/** A read that answers many items: a GraphQL list, or an object carrying a `data` list. */
const isListRead = (op: Operation) => {
  const t = unwrap(op.field.type);
  const named = getNamedType(t);
  return (
    op.method === 'GET' &&
    (isListType(t) ||
      (isObjectType(named) && 'data' in named.getFields() && isListType(unwrap(named.getFields().data.type))))
  );
};
// The invoice list pages by page number, as the spec names it (`page`, `limit`): docs/REFERENCE.md, Pagination.
const PAGE_NUMBERED = new Set(['GET /billing/invoices']);
// A mutation's result, not a list read: the pool's addresses after the change.
const MUTATION_RESULT_ARRAY = 'post /pools/{id}/ips/apply';

// A password-session operation answers every key 403 (test/account/settings.test.ts reads it with a session).
const lists = operations.filter((op) => isListRead(op) && !PAGE_NUMBERED.has(op.meta.rest) && !op.meta.caller);
const paged = lists.filter((op) => op.field.args.some((a) => a.name === 'cursor'));
const itemKey = (item: unknown) => JSON.stringify(item);
/** Within every list's maximum (the delivery log's is 100); the fixture's lists are shorter. */
const WHOLE = 100;

let app: TestApp;
let receiver: Receiver;
let E: Estate;

async function get(op: Operation, args: Args) {
  const req = restRequest(op, args);
  return app.call(req.method, req.url, { key: E.customer.key });
}

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true });
  receiver = await startReceiver();
  E = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  // More than one item in each list that pages, so that limit=1 has pages to walk.
  const call = async (path: string, body: unknown) => {
    const res = await app.call('POST', path, { key: E.customer.key, body });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  for (const label of ['second', 'third'])
    await call('/v1/pools', { productId: 'pool-fra1', label, vcpu: 2, ram2gb: 1, disk100: 1, ip16: 0 });
  await proveDomain(app, E.customer.accountId, `second-${E.mailDomain}`);
  await call('/v1/mail/domains', { domain: `second-${E.mailDomain}` });
  for (const local of ['grace', 'linus']) {
    await call('/v1/mail/mailboxes', {
      domain_id: E.mailDomainId,
      local_part: local,
      password: 'a long enough password',
    });
    await call('/v1/mail/aliases', {
      domain_id: E.mailDomainId,
      source_local: `to-${local}`,
      destination: `${local}@example.org`,
    });
  }
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

describe('declared once: every list read returns an envelope type', () => {
  it('no operation returns a bare GraphQL list but the documented mutation result; list reads return XxxList', () => {
    const bare = operations.filter((op) => isListType(unwrap(op.field.type))).map((op) => op.meta.rest);
    expect(bare).toEqual(['POST /pools/:id/ips/apply']);
    expect(lists.filter((op) => !isEnvelope(op.field.type)).map((op) => op.meta.rest)).toEqual([]);
    for (const rest of [
      'GET /servers/:id/snapshots',
      'GET /pools',
      'GET /hosting/:id/backups',
      'GET /mail/domains/:id/aliases',
    ]) {
      expect(lists.map((op) => op.meta.rest)).toContain(rest);
    }
    expect(paged.map((op) => op.meta.rest)).toEqual(
      expect.arrayContaining([
        'GET /servers',
        'GET /pools',
        'GET /mail/domains',
        'GET /mail/mailboxes',
        'GET /mail/domains/:id/mailboxes',
        'GET /mail/domains/:id/aliases',
      ]),
    );
  });
});

describe('REST', () => {
  it('every list read answers {data, hasMore, nextCursor}; a list that does not page comes whole', async () => {
    const failures: string[] = [];
    for (const op of lists) {
      const res = await get(op, argsFor(op, E));
      const b = res.body;
      const envelope =
        res.status === 200 &&
        Object.keys(b ?? {})
          .sort()
          .join() === 'data,hasMore,nextCursor' &&
        Array.isArray(b.data) &&
        typeof b.hasMore === 'boolean' &&
        (b.nextCursor === null || typeof b.nextCursor === 'string') &&
        b.hasMore === (b.nextCursor !== null);
      if (!envelope) failures.push(`${op.meta.rest}: ${res.status} ${res.text.slice(0, 200)}`);
      else if (!paged.includes(op) && (b.hasMore || b.nextCursor !== null))
        failures.push(`${op.meta.rest} does not page but answered hasMore ${b.hasMore}`);
    }
    expect(failures).toEqual([]);
    expect(lists.length).toBeGreaterThanOrEqual(20);
  });

  it('every list that pages walks whole with limit=1 and its cursors, newest first, no item twice', async () => {
    const walked: string[] = [];
    for (const op of paged) {
      const args = argsFor(op, E);
      const all = await get(op, { ...args, limit: WHOLE });
      expect(all.status, `${op.meta.rest}: ${all.text}`).toBe(200);
      expect(all.body.hasMore).toBe(false);
      const seen: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; page <= all.body.data.length; page++) {
        const res = await get(op, { ...args, limit: 1, ...(cursor ? { cursor } : {}) });
        expect(res.status, `${op.meta.rest} page ${page}: ${res.text}`).toBe(200);
        expect(res.body.data.length, `${op.meta.rest} page ${page}`).toBe(Math.min(1, all.body.data.length));
        seen.push(...res.body.data);
        expect(res.body.hasMore, `${op.meta.rest} page ${page}`).toBe(seen.length < all.body.data.length);
        if (!res.body.hasMore) break;
        cursor = res.body.nextCursor;
      }
      expect(seen.map(itemKey), op.meta.rest).toEqual(all.body.data.map(itemKey));
      const ids = all.body.data.map((item: { id: string | number }) => item.id);
      expect(
        ids.every((id: string | number, i: number) => i === 0 || ids[i - 1] > id),
        `${op.meta.rest} newest first: ${ids}`,
      ).toBe(true);
      if (seen.length >= 2) walked.push(op.meta.rest);
    }
    // The lists that page since the envelope came to every list, with several pages each.
    expect(walked).toEqual(
      expect.arrayContaining([
        'GET /pools',
        'GET /mail/domains',
        'GET /mail/mailboxes',
        'GET /mail/domains/:id/mailboxes',
        'GET /mail/domains/:id/aliases',
      ]),
    );
  });

  it('a limit out of range or a cursor that is not one → 400 naming it; a whole list takes no limit', async () => {
    const failures: string[] = [];
    for (const op of paged) {
      const args = argsFor(op, E);
      for (const limit of [0, 1001]) {
        const res = await get(op, { ...args, limit });
        if (res.status !== 400 || !/limit/.test(res.body?.message))
          failures.push(`${op.meta.rest} limit=${limit}: ${res.status} ${res.text}`);
      }
    }
    // Mail ids are integers: their cursors are too.
    for (const op of paged.filter((o) => o.path.startsWith('/mail/'))) {
      for (const cursor of ['abc', '-1', '1.5', '99999999999']) {
        const res = await get(op, { ...argsFor(op, E), cursor });
        if (res.status !== 400 || !/cursor/.test(res.body?.message))
          failures.push(`${op.meta.rest} cursor=${cursor}: ${res.status} ${res.text}`);
      }
    }
    // A list that comes whole takes no paging arguments.
    for (const op of lists.filter((o) => !paged.includes(o))) {
      const req = restRequest(op, argsFor(op, E));
      const res = await app.call('GET', `${req.url}${req.url.includes('?') ? '&' : '?'}limit=1`, {
        key: E.customer.key,
      });
      if (res.status !== 400 || !/limit/.test(res.body?.message))
        failures.push(`${op.meta.rest} limit=1: ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('no 200 response is a bare array but the documented mutation result; list reads reference their envelope', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const arrays: string[] = [];
    type DocOperation = { responses?: Record<string, { content?: Record<string, { schema?: { type?: string } }> }> };
    for (const [path, methods] of Object.entries<Record<string, DocOperation>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (op.responses?.['200']?.content?.['application/json']?.schema?.type === 'array')
          arrays.push(`${method} ${path}`);
      }
    }
    expect(arrays).toEqual([MUTATION_RESULT_ARRAY]);
    for (const op of lists) {
      const schemaRef = doc.paths[op.path.replace(/:(\w+)/g, '{$1}')].get.responses['200'].content['application/json']
        .schema.$ref as string;
      const envelope = doc.components.schemas[schemaRef.split('/').pop()!];
      expect(Object.keys(envelope.properties).sort(), op.meta.rest).toEqual(['data', 'hasMore', 'nextCursor']);
      expect(envelope.properties.data.type, op.meta.rest).toBe('array');
    }
  });
});

describe('MCP', () => {
  it('every list tool answers the envelope as its structured content', async () => {
    const client = await mcpClient(app.url, E.customer.key, { 'X-MCP-Toolsets': 'all' });
    try {
      const listNames = new Set(lists.map((op) => op.name));
      const tools = buildToolCatalog(schema).filter((t) => listNames.has(t.operation.name));
      expect(tools.length).toBeGreaterThanOrEqual(20);
      const failures: string[] = [];
      for (const tool of tools) {
        const res = await callTool(client, tool.name, argsFor(tool.operation, E));
        const s = res.structuredContent;
        if (
          res.isError ||
          Object.keys(s ?? {})
            .sort()
            .join() !== 'data,hasMore,nextCursor' ||
          !Array.isArray(s.data)
        )
          failures.push(`${tool.name}: ${JSON.stringify(res).slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
