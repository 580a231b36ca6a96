// `npm run migrate:new -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
// the SQL the schema engine diffs between the existing migrations and prisma/schema.prisma
// (what `prisma migrate dev --create-only` would write). Never hand-write migration SQL.
import { mkdir, writeFile } from 'node:fs/promises';
import { diffMigrationsToSchema, MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { MIGRATION_LOCK_TOML } from '../src/db/schema-engine.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name) || process.argv.length > 3) {
  console.error('usage: npm run migrate:new -- <name>   (name: lowercase letters, digits, underscore)');
  process.exit(2);
}

const sql = await diffMigrationsToSchema();
if (!sql) {
  console.log('no changes');
  process.exit(0);
}

// Prisma's folder naming: UTC YYYYMMDDHHMMSS_name.
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = `${MIGRATIONS_DIR}/${stamp}_${name}`;
await mkdir(dir, { recursive: true });
await writeFile(`${dir}/migration.sql`, sql);
// 'wx': create the lock file only if missing; never rewrite an existing one.
await writeFile(`${MIGRATIONS_DIR}/migration_lock.toml`, MIGRATION_LOCK_TOML, { flag: 'wx' }).catch(
  (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  },
);
console.log(`created prisma/migrations/${stamp}_${name}/migration.sql`);
