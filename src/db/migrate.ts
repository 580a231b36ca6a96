// Applies and diffs prisma/migrations with the wasm schema engine: the same engine calls as
// `prisma migrate deploy` / `prisma migrate diff`, without the native engine binary.
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { pgliteTarget, type MigrationTarget } from './migration-targets.ts';
import { MIGRATION_LOCK_TOML, NO_FILTERS, withSchemaEngine, type MigrationList } from './schema-engine.ts';

// Relative to this file, not the cwd: src/db/ -> prisma/.
const PRISMA_DIR = fileURLToPath(new URL('../../prisma/', import.meta.url));
export const MIGRATIONS_DIR = `${PRISMA_DIR}migrations`;
export const SCHEMA_PATH = `${PRISMA_DIR}schema.prisma`;

/**
 * Key for our pg_advisory_lock. Deliberately not Prisma's own 72707369: the engine takes that
 * one itself on its own connection during applyMigrations (giving up after 10 s), so holding it
 * here would block our own engine.
 */
export const MIGRATION_LOCK_KEY = 4_711_202_405;

/** Migration folder names, in the order the engine applies them. */
export async function listMigrationFolders(): Promise<string[]> {
  return (await loadMigrationsList()).migrationDirectories.map((d) => d.path);
}

/**
 * Applies the migrations in prisma/migrations that the database has not recorded in
 * `_prisma_migrations` yet, exactly as `prisma migrate deploy` does (same engine call), under
 * an advisory lock so that instances starting together apply them once.
 */
export async function applyPendingMigrations(
  target: MigrationTarget,
  opts: { log?: (msg: string) => void } = {},
): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => {});
  const migrationsList = await loadMigrationsList();
  // Fast path for the usual start: every migration is recorded as applied, so the engine
  // (a large WebAssembly module, seconds to load on a busy machine) is not needed at all.
  if (
    await allRecorded(
      target,
      migrationsList.migrationDirectories.map((d) => d.path),
    )
  ) {
    log('no pending migrations');
    return { applied: [] };
  }
  return withMigrationLock(target, log, async () => {
    const { appliedMigrationNames } = await withSchemaEngine(target, (engine) =>
      engine.applyMigrations({ migrationsList, filters: NO_FILTERS }),
    );
    log(
      appliedMigrationNames.length
        ? `applied migrations: ${appliedMigrationNames.join(', ')}`
        : 'no pending migrations',
    );
    return { applied: appliedMigrationNames };
  });
}

/** True when `_prisma_migrations` records every folder as finished (false if the table is missing). */
async function allRecorded(target: MigrationTarget, names: string[]): Promise<boolean> {
  const conn = (await target.connect()).adapter;
  try {
    const result = await conn.queryRaw({
      sql: 'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      args: [],
      argTypes: [],
    });
    const applied = new Set(result.rows.map((r) => String(r[0])));
    return names.every((n) => applied.has(n));
  } catch {
    return false;
  } finally {
    await conn.dispose();
  }
}

/**
 * The SQL that would bring a database migrated with prisma/migrations up to
 * prisma/schema.prisma (`prisma migrate diff --from-migrations --to-schema`), replaying the
 * migrations in a throwaway in-memory PGlite shadow database. '' when they are in sync.
 * `opts.schema` replaces the schema file's content (tests use it to prove a change shows up).
 */
export async function diffMigrationsToSchema(opts: { schema?: string } = {}): Promise<string> {
  const [migrationsList, schema] = await Promise.all([
    loadMigrationsList(),
    opts.schema ?? readFile(SCHEMA_PATH, 'utf8'),
  ]);
  const main = new PGlite();
  try {
    const { stdout } = await withSchemaEngine(pgliteTarget(main), (engine) =>
      engine.diff({
        from: { tag: 'migrations', ...migrationsList },
        to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: schema }] },
        script: true,
        exitCode: null,
        filters: NO_FILTERS,
      }),
    );
    const sql = stdout ?? '';
    // In sync, the engine still prints a comment ("-- This is an empty migration.").
    const hasStatements = sql.split('\n').some((l) => l.trim() !== '' && !l.trim().startsWith('--'));
    return hasStatements ? sql : '';
  } finally {
    await main.close();
  }
}

/** The engine's view of the migrations folder; mirrors what the Prisma CLI builds. */
async function loadMigrationsList(): Promise<MigrationList> {
  // The engine picks its connector from the lock file and refuses a folder without one (as
  // before the first migration); this project is PostgreSQL only, so default to that.
  const lockfile = await readFile(`${MIGRATIONS_DIR}/migration_lock.toml`, 'utf8').catch(() => MIGRATION_LOCK_TOML);
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch(() => []);
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  const migrationDirectories = await Promise.all(
    dirs.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: await readFile(`${MIGRATIONS_DIR}/${name}/migration.sql`, 'utf8').then(
          (value) => ({ tag: 'ok' as const, value }),
          (e: Error) => ({ tag: 'error' as const, value: e.message }),
        ),
      },
    })),
  );
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path)); // timestamps: name order is time order
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: 'migration_lock.toml', content: lockfile },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

/**
 * Holds pg_advisory_lock(MIGRATION_LOCK_KEY) around `fn`.
 *
 * The engine exposes no way to run our own SQL on its connection, so the lock is taken on a
 * separate connection from the same factory. A session lock must be taken and released on
 * one physical connection, but a driver adapter queries through a pool (adapter-pg: any idle
 * client, and idle clients are closed after 10 s, which would drop the lock mid-migration).
 * The only way the adapter interface pins one connection is a transaction, so the lock lives
 * in an otherwise empty transaction that we roll back at the end (the connection sits "idle
 * in transaction" meanwhile; it holds no snapshot or row locks).
 *
 * PGlite is a single session shared by everyone: a transaction there would block the engine's
 * own queries (deadlock), and the session lock is re-entrant, so there it is taken directly.
 */
async function withMigrationLock<T>(
  target: MigrationTarget,
  log: (msg: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  const conn = (await target.connect()).adapter;
  try {
    if (target.oneSession) return await locked(conn, log, fn);
    const tx = await conn.startTransaction();
    try {
      return await locked(tx, log, fn);
    } finally {
      // adapter-pg leaves COMMIT/ROLLBACK to the caller unless usePhantomQuery is set.
      if (!tx.options.usePhantomQuery) await exec(tx, 'ROLLBACK').catch(() => {});
      await tx.rollback();
    }
  } finally {
    await conn.dispose();
  }
}

async function locked<T>(
  q: Pick<SqlDriverAdapter, 'executeRaw'>,
  log: (msg: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  log(`waiting for migration lock ${MIGRATION_LOCK_KEY}`);
  await exec(q, `SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
  try {
    return await fn();
  } finally {
    // Don't let a failed unlock hide fn's error; closing the connection releases it anyway.
    await exec(q, `SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).catch((e: unknown) =>
      log(`releasing migration lock failed: ${String(e)}`),
    );
  }
}

function exec(q: Pick<SqlDriverAdapter, 'executeRaw'>, sql: string): Promise<number> {
  return q.executeRaw({ sql, args: [], argTypes: [] });
}
