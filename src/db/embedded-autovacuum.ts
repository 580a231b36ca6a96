import type { AdapterClient } from './pglite-fast-client.ts';

/** How often the embedded database's tables are checked (PostgreSQL's autovacuum naps 60 s; bursts here are shorter). */
const AUTOVACUUM_CHECK_MS = 5_000;

/**
 * PostgreSQL's autovacuum, for the embedded database. PGlite is a single backend with no
 * background workers, so nothing ever vacuums or analyzes its tables: dead row versions pile
 * up (the delivery queue updates each row twice) and the planner keeps the row counts of the
 * day a table was created — with the delivery queue estimated at a dozen rows, each claim
 * sorted every due row (PGlite: ~20 ms per claim of 200 with 10,000 due, ~4 ms with statistics).
 *
 * Every AUTOVACUUM_CHECK_MS this flushes the statistics (single-user mode only flushes them
 * when asked) and runs what autovacuum would, with its default thresholds: ANALYZE when
 * more than 50 + 10 % of a table's rows changed since the last one, VACUUM when more than
 * 50 + 20 % are dead or 1,000 + 20 % were inserted since the last vacuum.
 *
 * It runs through the embedded client (src/db/pglite-fast-client.ts), whose lock keeps each
 * statement out of the app's open transactions: VACUUM cannot run inside one.
 */
export function startEmbeddedAutovacuum(
  db: AdapterClient,
  opts: { onError: (err: Error) => void; intervalMs?: number },
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = () => {
    if (!stopped) timer = setTimeout(tick, opts.intervalMs ?? AUTOVACUUM_CHECK_MS).unref();
  };
  const tick = () => {
    running = runEmbeddedAutovacuum(db)
      .then(
        () => undefined,
        (err: Error) => opts.onError(err),
      )
      .finally(() => {
        running = undefined;
        schedule();
      });
  };
  schedule();
  return {
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** One round: what needed a VACUUM or an ANALYZE, and got it. */
export async function runEmbeddedAutovacuum(db: AdapterClient): Promise<{ vacuumed: string[]; analyzed: string[] }> {
  // Pending counters reach the statistics views at the end of the next transaction: this one.
  await db.exec('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query(`
    SELECT format('%I.%I', s.schemaname, s.relname) AS name,
           s.n_dead_tup > 50 + 0.2 * t.n OR s.n_ins_since_vacuum > 1000 + 0.2 * t.n AS vacuum,
           s.n_mod_since_analyze > 50 + 0.1 * t.n AS analyze
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid,
         LATERAL (SELECT greatest(c.reltuples, 0) AS n) t
    WHERE s.n_dead_tup > 50 + 0.2 * t.n OR s.n_ins_since_vacuum > 1000 + 0.2 * t.n OR s.n_mod_since_analyze > 50 + 0.1 * t.n`);
  const result = { vacuumed: [] as string[], analyzed: [] as string[] };
  for (const table of rows as { name: string; vacuum: boolean; analyze: boolean }[]) {
    // Names come from the catalogue, quoted by format(%I).
    if (table.vacuum) {
      await db.exec(`VACUUM (ANALYZE ${table.analyze ? 'true' : 'false'}) ${table.name}`);
      result.vacuumed.push(table.name);
    } else {
      await db.exec(`ANALYZE ${table.name}`);
    }
    if (table.analyze) result.analyzed.push(table.name);
  }
  return result;
}
