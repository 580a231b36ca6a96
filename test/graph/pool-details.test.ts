import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { buy } from '../helpers/pools.ts';

/**
 * A pool's usage, bounds and servers come from one read of its detail. A page of pools asking
 * for them reads every pool's detail in one statement, for one pool or five (counted at the driver,
 * startTestApp's onQuery), and each pool gets its own.
 */
let app: TestApp;
let c: Customer;
const sql: string[] = [];
const detailReads = () => sql.filter((s) => /FROM "Pool" p\b/.test(s)).length;
const QUERY = '{ pools(first: 10) { nodes { id label usage { servers } bounds { vcpu { min } } members { id } } } }';

beforeAll(async () => {
  app = await startTestApp({}, { onQuery: (s) => sql.push(s) });
  c = await app.customer({ scopes: ['servers:read', 'servers:write'], walletBalanceUsdCents: 10_000_000 });
}, 60_000);
afterAll(() => app?.stop());

it('reads the details of a page of pools in one statement, each pool its own', async () => {
  for (const count of [1, 4]) {
    const ids: string[] = [];
    while (ids.length < count) ids.push((await buy(app, c)).id);
    const first = await gql(app, QUERY, { key: c.key });
    const all = first.body.data.pools.nodes.length;
    sql.length = 0;
    const res = await gql(app, QUERY, { key: c.key });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.pools.nodes).toHaveLength(all);
    expect(detailReads()).toBe(1);
    for (const pool of res.body.data.pools.nodes) {
      const rest = await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key });
      expect(pool.usage.servers).toBe(rest.body.usage.servers);
      expect(pool.members.map((m: { id: string }) => m.id)).toEqual(rest.body.servers.map((s: { id: string }) => s.id));
    }
  }
});
