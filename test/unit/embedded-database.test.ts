import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmbeddedAutovacuum } from '../../src/db/embedded-autovacuum.ts';
import { fastQueryClient } from '../../src/db/pglite-fast-client.ts';

// What the app adds to the embedded database (PGlite), on one real in-memory instance:
// - a lean query path (src/db/pglite-fast-client.ts) that must answer exactly as PGlite's own
//   `query`, which it replaces under Prisma's adapter: same rows, types, errors, transactions;
// - autovacuum (src/db/embedded-autovacuum.ts), which a single-backend PGlite never runs.

let pglite: PGlite;
let fast: ReturnType<typeof fastQueryClient>;
beforeAll(async () => {
  pglite = new PGlite();
  fast = fastQueryClient(pglite, { preparedStatements: 1000 });
  await pglite.exec(
    `CREATE TABLE t (id text PRIMARY KEY, n int, big bigint, price numeric(10,2), ok boolean, at timestamptz, doc jsonb, tags text[], raw bytea)`,
  );
});
afterAll(async () => {
  await pglite?.close();
});

const INSERT = 'INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *';
const row = (id: string) => [
  id,
  7,
  '9007199254740993',
  '12.50',
  true,
  '2026-11-21 10:00:00.123',
  JSON.stringify({ a: [1, 'x'] }),
  ['a', 'b "c"', 'd,e'],
  new Uint8Array([0, 1, 255]),
];

describe('fast PGlite query client', () => {
  it('returns what PGlite returns: rows, fields and affected rows, in both row modes and with custom parsers', async () => {
    const parsers = { 1184: (v: string) => `ts:${v}` };
    for (const options of [undefined, { rowMode: 'array' as const }, { rowMode: 'array' as const, parsers }]) {
      const suffix = JSON.stringify(options ?? {});
      const ours = await fast.query(INSERT, row(`fast${suffix}`), options);
      const theirs = await pglite.query(INSERT, row(`own${suffix}`), options);
      // The same row but for its id.
      const strip = (r: { rows: unknown[] }) =>
        r.rows.map((x) => (Array.isArray(x) ? x.slice(1) : { ...(x as object), id: undefined }));
      expect(strip(ours)).toEqual(strip(theirs));
      expect(ours.fields).toEqual(theirs.fields);
      expect(ours.affectedRows).toBe(theirs.affectedRows);
    }
    const ours = await fast.query('UPDATE t SET n = n + 1 WHERE n = $1', [7]);
    expect(ours.affectedRows).toBe(6);
    expect(await fast.query('SELECT id FROM t WHERE n = $1 AND doc IS NULL', [1])).toEqual(
      await pglite.query('SELECT id FROM t WHERE n = $1 AND doc IS NULL', [1]),
    );
  });

  it('prepares each distinct statement once and reuses it', async () => {
    const count = async () =>
      (
        await pglite.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = 'SELECT $1::int * 2 AS doubled'`,
        )
      ).rows[0].n;
    for (let i = 0; i < 5; i++)
      expect((await fast.query('SELECT $1::int * 2 AS doubled', [i])).rows).toEqual([{ doubled: i * 2 }]);
    expect(await count()).toBe(1);
  });

  it('reports errors as PGlite does, and the session goes on', async () => {
    const err = await fast
      .query(INSERT, row('dup'))
      .then(() => fast.query(INSERT, row('dup')))
      .catch((e) => e);
    expect(err.code).toBe('23505');
    expect(err.constructor).toBe((await pglite.query(INSERT, row('dup')).catch((e) => e)).constructor);
    expect(await fast.query('SELECT syntax error here').catch((e) => e.code)).toBe('42601');
    expect((await fast.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('runs inside a transaction as part of it; a statement outside waits for the transaction to end', async () => {
    let outside: Promise<unknown> | undefined;
    await fast.transaction(async (tx) => {
      await tx.query(INSERT, row('in-tx'));
      outside = fast.query('SELECT count(*)::int AS n FROM t WHERE id = $1', ['in-tx']);
      // Give the outside statement every chance to run early.
      await new Promise((r) => setTimeout(r, 50));
      expect((await tx.query('SELECT count(*)::int AS n FROM t WHERE id = $1', ['in-tx'])).rows).toEqual([{ n: 1 }]);
    });
    expect(((await outside) as { rows: unknown[] }).rows).toEqual([{ n: 1 }]);

    await expect(
      fast.transaction(async (tx) => {
        await tx.query(INSERT, row('rolled-back'));
        await tx.query(INSERT, row('rolled-back')); // duplicate: the transaction fails
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await fast.query('SELECT count(*)::int AS n FROM t WHERE id = $1', ['rolled-back'])).rows).toEqual([
      { n: 0 },
    ]);

    // Rolled back by call, as Prisma's adapter does it (without waiting for the rollback).
    await fast.transaction(async (tx) => {
      await tx.query(INSERT, row('called-back'));
      void tx.rollback();
      await expect(tx.query('SELECT 1')).rejects.toThrow('Transaction is closed');
    });
    expect((await fast.query('SELECT count(*)::int AS n FROM t WHERE id = $1', ['called-back'])).rows).toEqual([
      { n: 0 },
    ]);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it('serves Prisma through pglite-prisma-adapter: a unique violation is Prisma error P2002', async () => {
    const adapter = await new PrismaPGlite(fast as unknown as PGlite).connect();
    const args = {
      sql: 'INSERT INTO t (id) VALUES ($1)',
      args: ['prisma'],
      argTypes: [{ scalarType: 'string', arity: 'scalar' }],
    } as const;
    expect(await adapter.executeRaw(args as never)).toBe(1);
    const err = await adapter.executeRaw(args as never).catch((e) => e);
    expect(err.cause ?? err).toMatchObject({ kind: 'UniqueConstraintViolation' });
  });
});

describe('embedded autovacuum', () => {
  const stats = async () =>
    (
      await pglite.query<{ reltuples: number; vacuums: number; analyzes: number; dead: number }>(`
      SELECT c.reltuples::int AS reltuples, s.vacuum_count::int AS vacuums, s.analyze_count::int AS analyzes, s.n_dead_tup::int AS dead
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'queue'`)
    ).rows[0];

  it("analyzes and vacuums a table past autovacuum's thresholds, and leaves it alone below them", async () => {
    await pglite.exec(`CREATE TABLE queue (id int PRIMARY KEY, status text); CREATE INDEX ON queue (status)`);
    await fast.query(`INSERT INTO queue SELECT g, 'pending' FROM generate_series(1, 5000) g`);
    // Never analyzed: the planner knows nothing of the 5,000 rows.
    expect((await stats())?.reltuples ?? -1).toBeLessThanOrEqual(0);

    let round = await runEmbeddedAutovacuum(fast);
    expect(round.analyzed).toContain('public.queue');
    expect(round.vacuumed).toContain('public.queue'); // 5,000 inserted > 1,000 + 20 % of 0
    expect(await stats()).toMatchObject({ reltuples: 5000, dead: 0 });

    // 40 of 5,000 rows changed: under 50 + 10 %, nothing to do.
    await fast.query(`UPDATE queue SET status = 'done' WHERE id <= 40`);
    round = await runEmbeddedAutovacuum(fast);
    expect(round.analyzed).not.toContain('public.queue');
    expect(round.vacuumed).not.toContain('public.queue');

    // 1,500 more: past both thresholds (dead rows > 50 + 20 % of 5,000 = 1,050).
    await fast.query(`UPDATE queue SET status = 'done' WHERE id <= 1540`);
    const before = await stats();
    round = await runEmbeddedAutovacuum(fast);
    expect(round.analyzed).toContain('public.queue');
    expect(round.vacuumed).toContain('public.queue');
    const after = await stats();
    expect(after.vacuums).toBe(before.vacuums + 1);
    expect(after.dead).toBe(0);
    // The planner now knows how many are pending.
    const plan = (await pglite.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT * FROM queue WHERE status = 'pending'`))
      .rows[0]['QUERY PLAN'];
    expect(Number(/rows=(\d+)/.exec(plan)![1])).toBeGreaterThan(3000);
  });
});
