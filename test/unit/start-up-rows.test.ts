import { afterAll, describe, expect, it } from 'vitest';
import { Clock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { BUILT_IN_CLIENTS, ensureBuiltInClients } from '../../src/modules/oauth/clients.ts';
import { freshDatabase } from '../helpers/app.ts';

// Instances started together on a new database each create the rows start-up needs if they are
// missing (the simulated clock's, src/clock.ts; the built-in OAuth clients,
// src/modules/oauth/clients.ts): none may fail because another created them meanwhile.
describe.runIf(process.env.TEST_DATABASE_URL)('start-up rows, created by instances starting together', () => {
  const opened: Database[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const db of opened) await db.close();
    await drop?.();
  });

  it('are created once and every instance goes on, however the creations interleave', async () => {
    const fresh = (await freshDatabase())!;
    drop = fresh.drop;
    for (let i = 0; i < 3; i++) opened.push(await openDatabase({ databaseUrl: fresh.url, dataDir: '' }));
    const first = opened[0].prisma;
    for (let round = 0; round < 20; round++) {
      await first.simClock.deleteMany({});
      await first.oAuthClient.deleteMany({ where: { kind: 'builtin' } });
      const starts = opened.flatMap((db) =>
        [0, 1].map(() => Promise.all([new Clock(db.prisma).load(), ensureBuiltInClients(db.prisma)])),
      );
      const settled = await Promise.allSettled(starts);
      expect(
        settled.filter((s) => s.status === 'rejected'),
        `round ${round}`,
      ).toEqual([]);
      expect(await first.simClock.count()).toBe(1);
      expect(await first.oAuthClient.count({ where: { kind: 'builtin' } })).toBe(BUILT_IN_CLIENTS.length);
    }
  });
});
