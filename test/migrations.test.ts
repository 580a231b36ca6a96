// Migrations through the wasm schema engine: the schema never drifts from prisma/migrations,
// and applying them records _prisma_migrations as `prisma migrate deploy` does, once.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyPendingMigrations,
  diffMigrationsToSchema,
  listMigrationFolders,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_DIR,
  SCHEMA_PATH,
} from '../src/db/migrate.ts';
import { pgliteTarget, postgresTarget } from '../src/db/migration-targets.ts';
import { MIGRATION_LOCK_TOML, NO_FILTERS, withSchemaEngine } from '../src/db/schema-engine.ts';

type MigrationRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
};
const ROWS_SQL =
  'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY started_at';

let folders: string[];
let checksums: string[];

beforeAll(async () => {
  folders = await listMigrationFolders();
  // `prisma migrate deploy` records the SHA-256 of each migration.sql.
  checksums = await Promise.all(
    folders.map(async (f) =>
      createHash('sha256')
        .update(await readFile(join(MIGRATIONS_DIR, f, 'migration.sql')))
        .digest('hex'),
    ),
  );
});

function expectDeployedRows(rows: MigrationRow[]): void {
  expect(rows.map((r) => r.migration_name)).toEqual(folders);
  for (const [i, row] of rows.entries()) {
    expect(row.checksum).toBe(checksums[i]);
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(row.rolled_back_at).toBeNull();
    expect(row.applied_steps_count).toBe(1);
  }
}

const baseUrl = process.env.TEST_DATABASE_URL;
// The folder's diff and the PGlite cases never touch TEST_DATABASE_URL: in the suite's PostgreSQL
// run (CI's second) they would repeat the embedded run exactly, so they run there only.
const repeatsTheEmbeddedRun = Boolean(baseUrl);

describe.skipIf(repeatsTheEmbeddedRun)('migrations folder', () => {
  it('lists timestamped folders, starting with init', () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(folders[0]).toMatch(/^\d{14}_init$/);
    expect([...folders].sort()).toEqual(folders);
  });

  // Replays every migration into a shadow database in WebAssembly: slow on a loaded 2-core machine.
  it('is in sync with schema.prisma (run `npm run migrate:new -- <name>` if not)', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  }, 120_000);

  it('reports a schema change as SQL (so the empty diff above means something)', async () => {
    const schema = `${await readFile(SCHEMA_PATH, 'utf8')}\nmodel MigrationProbe {\n  id Int @id\n}\n`;
    const sql = await diffMigrationsToSchema({ schema });
    expect(sql).toContain('CREATE TABLE "MigrationProbe"');
    expect(sql).not.toContain('CREATE TABLE "Account"'); // only the change, not the whole schema
  }, 120_000);
});

describe.skipIf(repeatsTheEmbeddedRun)('applyPendingMigrations on PGlite', () => {
  let dir: string;
  let db: PGlite;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'migrations-test-'));
    db = new PGlite(dir);
    await db.waitReady;
  });
  afterAll(async () => {
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('applies every migration once, then nothing', async () => {
    const first = await applyPendingMigrations(pgliteTarget(db));
    expect(first.applied).toEqual(folders);
    expect((await applyPendingMigrations(pgliteTarget(db))).applied).toEqual([]);

    expectDeployedRows((await db.query<MigrationRow>(ROWS_SQL)).rows);
    const tables = await db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'Account'");
    expect(tables.rows).toHaveLength(1);
  });
});

/**
 * One migration that creates a table, then fails; the ';' inside its literal would split it
 * into the wrong pieces for a driver that splits scripts on ';'.
 */
const BROKEN_MIGRATIONS = {
  baseDir: '/nowhere',
  lockfile: { path: 'migration_lock.toml', content: MIGRATION_LOCK_TOML },
  shadowDbInitScript: '',
  migrationDirectories: [
    {
      path: '1_broken',
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: "CREATE TABLE t (id int); SELECT 'a;b'; SELECT no_such_fn();" },
      },
    },
  ],
};

describe.skipIf(repeatsTheEmbeddedRun)('schema engine on PGlite', () => {
  // pglite-prisma-adapter alone records a failing migration as applied (see migration-targets.ts).
  it('records a failing migration as failed, with the database error, and rolls it back', async () => {
    const db = new PGlite();
    try {
      await expect(
        withSchemaEngine(pgliteTarget(db), (e) =>
          e.applyMigrations({ migrationsList: BROKEN_MIGRATIONS, filters: NO_FILTERS }),
        ),
      ).rejects.toThrow(/no_such_fn\(\) does not exist/);
      const rows = await db.query<MigrationRow>(ROWS_SQL);
      expect(rows.rows.map((r) => [r.migration_name, r.finished_at])).toEqual([['1_broken', null]]);
      expect((await db.query("SELECT to_regclass('t') AS t")).rows).toEqual([{ t: null }]);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!baseUrl)('applyPendingMigrations on PostgreSQL (TEST_DATABASE_URL)', () => {
  const admin = new pg.Client(baseUrl);
  const created: string[] = [];

  /** A fresh, empty database; dropped in afterAll. */
  async function freshDatabase(): Promise<string> {
    const name = `migrations_test_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    created.push(name);
    const url = new URL(baseUrl!);
    url.pathname = `/${name}`;
    return url.toString();
  }

  async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
    const client = new pg.Client(url);
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  beforeAll(() => admin.connect());
  afterAll(async () => {
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('applies every migration once, then nothing', async () => {
    const url = await freshDatabase();
    const first = await applyPendingMigrations(postgresTarget(url));
    expect(first.applied).toEqual(folders);
    expect((await applyPendingMigrations(postgresTarget(url))).applied).toEqual([]);
    expectDeployedRows(await query<MigrationRow>(url, ROWS_SQL));
    // Every connection the engine and the lock opened was closed again.
    const [{ n }] = await query<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    expect(n).toBe(0);
  });

  it('applies once when two instances start together', async () => {
    const url = await freshDatabase();
    const results = await Promise.all([1, 2].map(() => applyPendingMigrations(postgresTarget(url))));
    expect(results.map((r) => r.applied).sort((a, b) => b.length - a.length)).toEqual([folders, []]);
    expectDeployedRows(await query<MigrationRow>(url, ROWS_SQL));
  });

  // adapter-pg alone splits the script on every ';' and runs the pieces one by one, leaving
  // the table of a failed migration behind (see migration-targets.ts).
  it('records a failing migration as failed, with the database error, and rolls it back', async () => {
    const url = await freshDatabase();
    await expect(
      withSchemaEngine(postgresTarget(url), (e) =>
        e.applyMigrations({ migrationsList: BROKEN_MIGRATIONS, filters: NO_FILTERS }),
      ),
    ).rejects.toThrow(/no_such_fn\(\) does not exist/);
    const rows = await query<MigrationRow>(url, ROWS_SQL);
    expect(rows.map((r) => [r.migration_name, r.finished_at])).toEqual([['1_broken', null]]);
    expect(await query(url, "SELECT to_regclass('t') AS t")).toEqual([{ t: null }]);
  });

  it('waits for the advisory lock before touching the database', async () => {
    const url = await freshDatabase();
    const holder = new pg.Client(url);
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const pending = applyPendingMigrations(postgresTarget(url));
      await new Promise((r) => setTimeout(r, 1000));
      const [{ table }] = await query<{ table: string | null }>(
        url,
        "SELECT to_regclass('_prisma_migrations')::text AS table",
      );
      expect(table).toBeNull(); // still blocked: nothing created yet
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      expect((await pending).applied).toEqual(folders);
    } finally {
      await holder.end();
    }
  });
});
