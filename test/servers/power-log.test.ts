import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runningServer } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('transaction options, set once on the client (db/client.ts)', () => {
  it('an interactive transaction given no options outlives Prisma\'s 5 s default', async () => {
    const one = await app.running.app.prisma.$transaction(async (tx) => {
      await sleep(5_300);
      return tx.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one');
    });
    expect(one).toEqual([{ one: 1 }]);
  }, 20_000);
});

describe('power actions', () => {
  it('a power action answers as before', async () => {
    const c = await app.customer({ scopes: ['servers:read', 'servers:write'] });
    const id = await runningServer(app, c);
    const res = await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    expect(res.status).toBeLessThan(300);
  });
});
