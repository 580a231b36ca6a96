import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runningServer } from '../helpers/servers.ts';
import { providerServerLog } from '../../src/provider/simulated.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('transaction options, set once on the client (db/client.ts)', () => {
  it("an interactive transaction given no options outlives Prisma's 5 s default", async () => {
    const one = await app.running.app.prisma.$transaction(async (tx) => {
      await sleep(5_300);
      return tx.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one');
    });
    expect(one).toEqual([{ one: 1 }]);
  }, 20_000);
});

describe('the provider log is append-only', () => {
  it('two power actions append two rows, in order, and rewrite nothing', async () => {
    const c = await app.customer({ scopes: ['servers:read', 'servers:write'] });
    const id = await runningServer(app, c);
    const prisma = app.running.app.prisma;
    const rows = () => prisma.providerServerLogEntry.findMany({ where: { serverId: id }, orderBy: { id: 'asc' } });
    const before = await rows();
    const upstream = await prisma.providerServer.findUniqueOrThrow({ where: { serverId: id } });
    const stop = await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    const start = await app.call('POST', `/v1/servers/${id}/power/start`, { key: c.key });
    expect([stop.status, start.status]).toEqual([200, 200]);
    const after = await rows();
    // The rows there before are untouched, and exactly two follow them, in the actions' order.
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((r) => r.line)).toEqual(['power stop', 'power start']);
    expect(after[after.length - 1].id > after[after.length - 2].id).toBe(true);
    // The ProviderServer row itself is not written to by a power action.
    expect(await prisma.providerServer.findUniqueOrThrow({ where: { serverId: id } })).toEqual(upstream);
    expect(await providerServerLog(prisma, id)).toMatch(/ power stop\n.* power start\n$/);
  });
});
