import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantClient } from '../../src/db/tenant.ts';
import { detail, getPool } from '../../src/modules/pools/service.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { comparable } from '../helpers/rows.ts';

// GET /v1/pools/:id reads a pool's detail in one statement (src/modules/pools/pool-read.ts);
// here it must equal, deep and strict, what the Prisma reads of the same detail return inside a
// transaction (service.ts `detail`: pool, product, usage, servers with addresses) for the same
// data, on whichever database the suite runs on.

let app: TestApp;
let c: Customer;
let pool: { id: string };

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({
    scopes: ['servers:read', 'servers:write', 'servers:destroy'],
    walletBalanceUsdCents: 1_000_000,
  });
  const bought = await app.call('POST', '/v1/pools', {
    key: c.key,
    body: { productId: 'pool-fra1', label: 'cluster', vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 },
  });
  expect(bought.status, bought.text).toBe(200);
  pool = bought.body;
  const create = (label: string, ipCount: number) =>
    app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-1c-2g-50', label, osTemplate: 'debian-12', ipCount },
    });
  for (const [label, ips] of [
    ['a', 2],
    ['b', 0],
    ['c', 1],
  ] as const)
    expect((await create(label, ips)).status).toBe(200);
  const gone = await create('gone', 1);
  expect((await app.call('DELETE', `/v1/servers/${gone.body.id}`, { key: c.key })).status).toBe(200);
}, 120_000);
afterAll(() => app?.stop());

describe('the pool detail in one statement', () => {
  it('equals the Prisma reads of the same pool', async () => {
    const prisma = app.running.app.prisma;
    const db = tenantClient(prisma, c.accountId);
    const row = await prisma.pool.findFirstOrThrow({ where: { id: pool.id } });
    const viaPrisma = await prisma.$transaction((tx) => detail(tx as never, row));
    const viaStatement = await getPool(db, pool.id);
    expect(comparable(viaStatement)).toStrictEqual(comparable(viaPrisma));
    // The data exercises every part: servers with several, one and no addresses, a terminated one left out.
    expect(viaStatement.servers.map((s: { label: string; ips: string[] }) => [s.label, s.ips.length])).toEqual([
      ['a', 2],
      ['b', 0],
      ['c', 1],
    ]);
    expect(viaStatement.usage).toMatchObject({ servers: 3, ips: 3 });
    expect(viaStatement.bounds).not.toBeNull();
  });

  it("another account's pool, or a deleted one, is a 404", async () => {
    const other = await app.customer({ scopes: ['servers:read'] });
    expect((await app.call('GET', `/v1/pools/${pool.id}`, { key: other.key })).status).toBe(404);
    await expect(getPool(tenantClient(app.running.app.prisma, other.accountId), pool.id)).rejects.toThrow(/not found/i);
  });
});
