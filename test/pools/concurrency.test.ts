import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { balance, debits, expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const WRITE = ['servers:read', 'servers:write'];
// pool-ams2 is a small site: 48 vCPU of capacity in all.
const SHAPE = { vcpu: 16, ram2gb: 4, disk100: 2, ip16: 1 };

async function buy(key: string, shape = SHAPE) {
  const res = await app.call('POST', '/v1/pools', { key, body: { productId: 'pool-ams2', label: 'p', ...shape } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('pool resizes under concurrency', () => {
  it('two simultaneous resizes of different pools never oversell the datacenter capacity', async () => {
    const a = await app.customer({ scopes: [...WRITE, 'servers:destroy'], walletBalanceUsdCents: 100_000 });
    const b = await app.customer({ scopes: [...WRITE, 'servers:destroy'], walletBalanceUsdCents: 100_000 });
    const pa = await buy(a.key);
    const pb = await buy(b.key);
    // 32 of 48 vCPU sold; each resize asks for 16 more: only one fits.
    const [ra, rb] = await Promise.all([
      app.call('PATCH', `/v1/pools/${pa.id}`, { key: a.key, body: { ...SHAPE, vcpu: 32 } }),
      app.call('PATCH', `/v1/pools/${pb.id}`, { key: b.key, body: { ...SHAPE, vcpu: 32 } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 400]);
    const refused = ra.status === 400 ? { res: ra, c: a } : { res: rb, c: b };
    expectError(refused.res, 400, /capacity/);
    expect(await debits(app, refused.c)).toHaveLength(1); // the purchase only
    const stock = await app.running.app.prisma.providerStock.findUniqueOrThrow({
      where: { key: 'pool:pool-ams2:vcpu' },
    });
    expect(stock.available).toBe(0);
    // A third buyer finds nothing left.
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    expectError(
      await app.call('POST', '/v1/pools', {
        key: c.key,
        body: { productId: 'pool-ams2', label: 'p', ...SHAPE, vcpu: 2 },
      }),
      400,
      /capacity/,
    );
    expect(await balance(app, c)).toBe(100_000);
    // Deleting the pools returns their capacity.
    expect((await app.call('DELETE', `/v1/pools/${pa.id}`, { key: a.key })).status).toBe(200);
    expect((await app.call('DELETE', `/v1/pools/${pb.id}`, { key: b.key })).status).toBe(200);
    expect(
      (await app.running.app.prisma.providerStock.findUniqueOrThrow({ where: { key: 'pool:pool-ams2:vcpu' } }))
        .available,
    ).toBe(48);
  });

  it('two simultaneous resizes of one pool are serialized: the growth is charged once', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const before = await app.running.app.prisma.providerStock.findMany();
    const pool = await buy(c.key, { vcpu: 2, ram2gb: 4, disk100: 1, ip16: 1 });
    const charged = await balance(app, c);
    const results = await Promise.all([
      app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { vcpu: 2, ram2gb: 8, disk100: 1, ip16: 1 } }),
      app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { vcpu: 2, ram2gb: 8, disk100: 1, ip16: 1 } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const resizes = (await debits(app, c)).filter((t) => t.kind === 'pool_resize');
    expect(resizes).toHaveLength(1);
    expect(await balance(app, c)).toBe(charged + resizes[0].amountUsdCents);
    const ram = await app.running.app.prisma.providerStock.findUniqueOrThrow({
      where: { key: 'pool:pool-ams2:ram2gb' },
    });
    const ramBefore = before.find((s) => s.key === 'pool:pool-ams2:ram2gb')!.available;
    expect(ram.available).toBe(ramBefore - 8);
  });

  it('a shrink racing a server creation never leaves the servers holding more than the pool', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const pool = await buy(c.key, { vcpu: 4, ram2gb: 4, disk100: 1, ip16: 1 });
    const [create, shrink] = await Promise.all([
      app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-4c-8g-50', label: 'x', osTemplate: 'debian-12' },
      }),
      app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { vcpu: 2, ram2gb: 4, disk100: 1, ip16: 1 } }),
    ]);
    const detail = (await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body;
    expect(detail.usage.vcpu).toBeLessThanOrEqual(detail.vcpu);
    expect([create.status, shrink.status].filter((s) => s === 200)).toHaveLength(1);
  });
});
