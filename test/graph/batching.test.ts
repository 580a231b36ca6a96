import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'graphql';
import { documentCost } from '../../src/http/graphql/plugins/query-cost.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

/**
 * A nested query over 10, 100 and 1,000 servers, each with its pool, addresses, snapshots and
 * add-ons, sends the same number of SQL statements (counted at the driver, startTestApp's
 * onQuery): the prisma plugin loads a connection's relations with it, and the pool edge is
 * one batched read per level.
 */
let app: TestApp;
let c: Customer;
const sql: string[] = [];

const QUERY = `query($n: Int) { account { servers(first: $n) { totalCount nodes { id label status pool { id label } ips { ip ptr } snapshots { id name } addons { id type } } } } }`;

beforeAll(async () => {
  app = await startTestApp({}, { onQuery: (s) => sql.push(s) });
  c = await app.customer();
}, 60_000);
afterAll(() => app?.stop());

/** Adds servers up to `total` straight into the database: one pool, two addresses, a snapshot and an add-on each. */
async function growTo(total: number, have: number) {
  const db = app.running.app.prisma;
  const accountId = c.accountId;
  const now = Date.now();
  if (have === 0) {
    await db.pool.create({
      data: {
        id: 'pool_batchingtest00000000000000',
        accountId,
        productId: 'pool-fra1',
        label: 'batch',
        vcpu: 8,
        ram2gb: 8,
        disk100: 2,
        ip16: 1,
        ratesCents: { vcpu: 1, ram2gb: 1, disk100: 1, ip16: 1 },
        monthlyUsdCents: 4,
        paidUntil: new Date(now + 864e5),
      },
    });
  }
  const ids = Array.from({ length: total - have }, (_, i) => `srv_batch${String(have + i).padStart(21, '0')}`);
  await db.server.createMany({
    data: ids.map((id, i) => ({
      id,
      accountId,
      label: `b-${have + i}`,
      status: 'running',
      productId: 'std-2c-4g-50',
      vcpu: 2,
      ramMb: 4096,
      diskGb: 50,
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
      poolId: i % 2 ? 'pool_batchingtest00000000000000' : null,
    })),
  });
  await db.serverIp.createMany({
    data: ids.flatMap((id, i) =>
      [0, 1].map((k) => ({
        id: `ip_${id.slice(4)}${k}`,
        accountId,
        serverId: id,
        address: `10.${k}.${Math.floor((have + i) / 250)}.${(have + i) % 250}`,
        isPrimary: k === 0,
      })),
    ),
  });
  await db.snapshot.createMany({
    data: ids.map((id) => ({
      id: `snap_${id.slice(4)}`,
      accountId,
      serverId: id,
      name: 'nightly',
      status: 'available',
    })),
  });
  await db.serverAddon.createMany({
    data: ids.map((id) => ({
      id: `sad_${id.slice(4)}`,
      accountId,
      serverId: id,
      productId: 'addon-ipv4-1',
      type: 'extra_ip',
      activeType: 'extra_ip',
      monthlyUsdCents: 100,
      chargedUsdCents: 0,
    })),
  });
}

it('runs the same number of SQL statements for 10, 100 and 1,000 servers', async () => {
  const counts: Record<number, number> = {};
  let have = 0;
  for (const n of [10, 100, 1000]) {
    await growTo(n, have);
    have = n;
    await app.running.app.runDueWork();
    sql.length = 0;
    const res = await gql(app, QUERY, { key: c.key, variables: { n } });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const servers = res.body.data.account.servers;
    expect(servers.nodes).toHaveLength(n);
    expect(servers.totalCount).toBe(n);
    expect(
      servers.nodes.every(
        (s: { ips: unknown[]; snapshots: unknown[]; addons: unknown[] }) =>
          s.ips.length === 2 && s.snapshots.length === 1 && s.addons.length === 1,
      ),
    ).toBe(true);
    expect(
      servers.nodes.filter((s: { pool: { id: string } | null }) => s.pool?.id === 'pool_batchingtest00000000000000')
        .length,
    ).toBe(n / 2);
    // Statements of the query (the key check, rate limit and background work are not counted).
    counts[n] = sql.filter((s) => /"(Server|ServerIp|Snapshot|ServerAddon|Pool)"/.test(s)).length;
  }
  console.log(
    `statements per nested query: ${JSON.stringify(counts)}; paged cost for 100 servers: ${documentCost(app.running.app.schema, parse(QUERY), undefined, { n: 100 })}`,
  );
  expect(counts[100]).toBe(counts[10]);
  expect(counts[1000]).toBe(counts[10]);
  expect(counts[10]).toBeLessThanOrEqual(8);
}, 120_000);

it('nodes(ids:) loads each kind in one batch however many ids it names (plugin-relay, plugin-prisma)', async () => {
  // The servers of the test above: 1,000 of them, each with addresses, a snapshot, an add-on and half with a pool.
  const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Server { label ips { ip } } ... on Pool { label } } }`;
  const counts: Record<number, number> = {};
  for (const n of [2, 20, 100]) {
    const servers = Array.from({ length: n / 2 }, (_, i) => `srv_batch${String(i).padStart(21, '0')}`);
    const ids = [
      ...servers,
      ...servers.map((s) => `snap_${s.slice(4)}`),
      'pool_batchingtest00000000000000',
      'srv_00000000000000000000000000',
    ].slice(0, n);
    sql.length = 0;
    const res = await gql(app, NODES, { key: c.key, variables: { ids } });
    expect(res.body.errors).toBeUndefined();
    const nodes = res.body.data.nodes as ({ __typename: string; id: string; ips?: unknown[] } | null)[];
    expect(nodes.map((x) => x?.id ?? null)).toEqual(ids.map((id) => (id.startsWith('srv_0') ? null : id)));
    expect(nodes.filter((x) => x?.__typename === 'Server').every((x) => x!.ips!.length === 2)).toBe(true);
    counts[n] = sql.filter((s) => /"(Server|ServerIp|Snapshot|ServerAddon|Pool)"/.test(s)).length;
  }
  console.log(`statements per nodes(ids:): ${JSON.stringify(counts)}`);
  expect(counts[20]).toBe(counts[2]);
  expect(counts[100]).toBe(counts[2]);
}, 60_000);
