import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../src/db/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

// The simulated datacenter hands capacity pools /28 blocks from 198.19.128.0–198.19.199.255
// (src/provider/simulated.ts). A block may be partly taken with its first address free: a pool
// that shrinks gives back its free addresses highest first, while later ones stay assigned.
describe('pool address blocks', () => {
  it('a new block has none of its addresses taken, not only its first', async () => {
    const c = await app.customer();
    const prisma = app.running.app.prisma;
    const blocks = Array.from({ length: 72 * 16 }, (_, n) => ({
      octet3: 128 + Math.floor(n / 16),
      first: (n % 16) * 16,
    }));
    const spare = { octet3: 150, first: 32 };
    // The sixth address of every block but one is taken; every first address is free.
    await prisma.serverIp.createMany({
      data: blocks
        .filter((b) => b.octet3 !== spare.octet3 || b.first !== spare.first)
        .map((b) => ({
          id: newId(ID_PREFIX.serverIp),
          accountId: c.accountId,
          address: `198.19.${b.octet3}.${b.first + 5}`,
          version: 4,
          zoneHosted: true,
        })),
    });
    const ips = await app.running.app.provider.allocatePoolBlocks(prisma, 1, app.running.app.clock.now());
    expect(ips.map((ip) => ip.address)).toEqual(
      Array.from({ length: 16 }, (_, i) => `198.19.${spare.octet3}.${spare.first + i}`),
    );
  });
});
