import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../src/db/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The simulated datacenter has one address space for every customer: what it allocates to one
// account must be free of every other account's addresses, though the transaction it is handed
// is the customer's tenant-scoped one (which shows that account's rows only).

const WRITE = ['servers:read', 'servers:write'];
const SHAPE = { productId: 'pool-fra1', label: 'p', vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 };
const FREE_BLOCK = '198.19.150.32';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('pool address blocks across accounts', () => {
  it("with every /28 of the pool range held by one account but one, another account's new pool gets that one", async () => {
    const holder = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const first = await app.call('POST', '/v1/pools', { key: holder.key, body: SHAPE });
    expect(first.status, first.text).toBe(200);
    const held = new Set(
      (await app.call('GET', `/v1/pools/${first.body.id}/ips`, { key: holder.key })).body.data.map(
        (ip: { ip: string }) => ip.ip,
      ),
    );
    // The rest of the range (198.19.128.0 – 198.19.199.255 in /28s) goes to the holder's pool too, but one block.
    const rows = [];
    const now = new Date();
    for (let octet3 = 128; octet3 < 200; octet3++) {
      for (let first16 = 0; first16 < 256; first16 += 16) {
        if (`198.19.${octet3}.${first16}` === FREE_BLOCK) continue;
        for (let i = 0; i < 16; i++) {
          const address = `198.19.${octet3}.${first16 + i}`;
          if (!held.has(address))
            rows.push({
              id: newId(ID_PREFIX.serverIp, now.getTime()),
              accountId: holder.accountId,
              poolId: first.body.id,
              serverId: null,
              address,
              version: 4,
              zoneHosted: true,
              createdAt: now,
            });
        }
      }
    }
    for (let i = 0; i < rows.length; i += 2000)
      await app.running.app.prisma.serverIp.createMany({ data: rows.slice(i, i + 2000) });

    const other = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const bought = await app.call('POST', '/v1/pools', { key: other.key, body: SHAPE });
    expect(bought.status, bought.text).toBe(200);
    const ips = (await app.call('GET', `/v1/pools/${bought.body.id}/ips`, { key: other.key })).body.data.map(
      (ip: { ip: string }) => ip.ip,
    );
    expect(ips).toHaveLength(16);
    expect(ips[0]).toBe(FREE_BLOCK);
    expect(
      ips.every(
        (ip: string) => ip.startsWith('198.19.150.') && Number(ip.split('.')[3]) >= 32 && Number(ip.split('.')[3]) < 48,
      ),
    ).toBe(true);
  }, 120_000);
});
