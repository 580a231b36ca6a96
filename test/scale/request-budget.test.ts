import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { admitStatement, DatabaseBudgetSpent, withDatabaseBudget } from '../../src/core/database-budget.ts';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { freshDatabase } from '../helpers/app.ts';

/**
 * A request's database budget (src/core/database-budget.ts): however many statements a request would
 * send to a database that answers slowly or not at all, it waits at most its budget in all,
 * then sends nothing more and fails as an outage (503).
 */
describe('a request waits on the database for its budget at most', () => {
  it('each statement may wait only what is left; a spent budget refuses the next statement unsent, but never a ROLLBACK', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await withDatabaseBudget(async () => {
      const first = admitStatement('SELECT 1', 20_000);
      expect(first.timeoutMs).toBe(10_000);
      const slept = performance.now();
      await sleep(100);
      const waited = performance.now() - slept; // a timer may fire a fraction of a millisecond early
      first.settle();
      const second = admitStatement('SELECT 2', 20_000);
      expect(waited).toBeGreaterThan(90);
      expect(second.timeoutMs).toBeLessThanOrEqual(Math.ceil(10_000 - waited));
      expect(second.timeoutMs).toBeGreaterThan(0);
      second.settle();
    }, 10_000);
    await withDatabaseBudget(async () => {
      const only = admitStatement('SELECT 1', 4500);
      expect(only.timeoutMs).toBe(200);
      await sleep(250);
      only.settle();
      let refused: unknown;
      try {
        admitStatement('SELECT 2', 4500);
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(DatabaseBudgetSpent);
      expect(isDatabaseUnavailable(refused)).toBe(true);
      expect(admitStatement('ROLLBACK', 4500).timeoutMs).toBe(4500);
    }, 200);
    // Outside a request the pool's own bound holds.
    expect(admitStatement('SELECT 1', 4500).timeoutMs).toBe(4500);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL, through the pool the app uses', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;
  beforeAll(async () => {
    fresh = await freshDatabase();
    db = await openDatabase({ databaseUrl: fresh!.url, dataDir: '/tmp' });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await fresh?.drop();
  });

  it('twenty slow statements in a row cost the budget, not twenty statement waits: the fourth is cut, the rest never sent', async () => {
    await db.prisma.$executeRawUnsafe('SELECT 1'); // a connection made outside the measure
    const sent: string[] = [];
    const started = Date.now();
    const outcome = await withDatabaseBudget(async () => {
      for (let i = 0; i < 20; i++) {
        sent.push(`statement ${i}`);
        await db.prisma.$executeRawUnsafe('SELECT pg_sleep(0.3)');
      }
      return 'finished';
    }, 1000).catch((err: unknown) => err);
    const ms = Date.now() - started;
    expect(outcome).not.toBe('finished');
    expect(isDatabaseUnavailable(outcome)).toBe(true);
    expect(sent.length).toBeLessThanOrEqual(4);
    expect(ms).toBeLessThan(4500); // twenty statements would take 6 s
    // The pool is healthy afterwards, and work outside a request is not limited by it.
    expect(await db.prisma.$queryRawUnsafe('SELECT pg_sleep(0.6)::text AS slept, 1 AS one')).toHaveLength(1);
  });
  it('a transaction whose statement is cut client-side fails at once: its ROLLBACK does not wait behind the late answer', async () => {
    const started = Date.now();
    const cut = await withDatabaseBudget(async () => {
      await db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SELECT pg_sleep(2)');
      });
    }, 200).catch((err: unknown) => err);
    const ms = Date.now() - started;
    expect(isDatabaseUnavailable(cut)).toBe(true);
    expect(ms).toBeLessThan(1000); // on the same connection the ROLLBACK is answered after the 2 s sleep
    expect(await db.prisma.$queryRawUnsafe('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
