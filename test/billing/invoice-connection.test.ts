import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

// GraphQL's `invoices` is the invoices' connection (plugin-relay's offset connection); REST's
// GET /v1/billing/invoices keeps the spec's page and limit and its body, projected from it.

let app: TestApp;
let c: Customer;
let ids: string[];

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ scopes: ['billing:read'] });
  for (let i = 0; i < 5; i++) {
    const items = [{ description: `Line of ${i}`, amountUsdCents: 100 }];
    expect((await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, { items })).status).toBe(201);
  }
  ids = (await app.call('GET', '/v1/billing/invoices?limit=50', { key: c.key })).body.data.map(
    (i: { id: string }) => i.id,
  );
  expect(ids).toHaveLength(5);
}, 120_000);
afterAll(() => app?.stop());

const invoices = async (args: string) => {
  const res = await gql(
    app,
    `{ invoices${args} { nodes { id } totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    { key: c.key },
  );
  return res.body;
};
const idsOf = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id);

describe('invoices', () => {
  it('GraphQL pages the connection forward with first/after and back with last/before', async () => {
    const one = (await invoices('(first: 2)')).data.invoices;
    expect(idsOf(one)).toEqual(ids.slice(0, 2));
    expect(one).toMatchObject({ totalCount: 5, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const two = (await invoices(`(first: 2, after: "${one.pageInfo.endCursor}")`)).data.invoices;
    expect(idsOf(two)).toEqual(ids.slice(2, 4));
    expect(two.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const back = (await invoices(`(last: 2, before: "${two.pageInfo.startCursor}")`)).data.invoices;
    expect(idsOf(back)).toEqual(ids.slice(0, 2));
    const end = (await invoices('(last: 2)')).data.invoices;
    expect(idsOf(end)).toEqual(ids.slice(3));
    expect(end.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('GraphQL pages by number too, and refuses cursors it did not issue', async () => {
    expect(idsOf((await invoices('(first: 2, page: 3)')).data.invoices)).toEqual(ids.slice(4));
    const mixed = await invoices('(page: 2, last: 1)');
    expect(mixed.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST', field: 'page' } });
    const foreign = await invoices(`(after: "${ids[0]}")`);
    expect(foreign.errors[0]).toMatchObject({
      message: 'after must be the endCursor of a previous page.',
      extensions: { code: 'BAD_REQUEST', field: 'after' },
    });
  });

  it('REST keeps page and limit and its body { data, hasMore, limit, page, total }', async () => {
    const res = await app.call('GET', '/v1/billing/invoices?limit=2&page=2', { key: c.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data', 'hasMore', 'limit', 'page', 'total']);
    expect(res.body).toMatchObject({ hasMore: true, limit: 2, page: 2, total: 5 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(2, 4));
    const defaults = await app.call('GET', '/v1/billing/invoices', { key: c.key });
    expect(defaults.body).toMatchObject({ hasMore: false, limit: 20, page: 1, total: 5 });
    const past = await app.call('GET', '/v1/billing/invoices?limit=2&page=9', { key: c.key });
    expect(past.body).toEqual({ data: [], hasMore: false, limit: 2, page: 9, total: 5 });
    // GraphQL's cursors are not REST's: REST takes no cursor, after or first.
    for (const query of ['cursor=x', 'after=x', 'first=2'])
      expect((await app.call('GET', `/v1/billing/invoices?${query}`, { key: c.key })).status).toBe(400);
  });
});
