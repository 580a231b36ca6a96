import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyPendingMigrations, MIGRATIONS_DIR } from './migrate.ts';

/**
 * PGlite's start parameters. A 32 MB buffer cache instead of PostgreSQL's 128 MB default:
 * the embedded database's files sit in the OS page cache anyway, and the WebAssembly heap
 * never shrinks, so this is most of the process's memory.
 */
export const PGLITE_START_PARAMS = [...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams, '-c', `shared_buffers=${process.env.PGLITE_SHARED_BUFFERS ?? '32MB'}`];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'cloud-account-api');

/**
 * A fresh embedded database starts from a template: a tarball of a data directory that has
 * been through initdb and every migration. initdb is most of a cold start (seconds of
 * WebAssembly), and the result is the same every time, so it is made once (by `npm ci`'s
 * postinstall, or by the first start) and kept under node_modules/.cache, keyed by the
 * PGlite version and the migrations. A stale or missing template only costs time.
 */
export function templateKey(): string {
  const hash = createHash('sha256');
  hash.update(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version);
  hash.update(PGLITE_START_PARAMS.join(' '));
  for (const folder of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    const file = path.join(MIGRATIONS_DIR, folder, 'migration.sql');
    if (fs.existsSync(file)) hash.update(folder).update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

const templateFile = () => path.join(CACHE_DIR, `pglite-${templateKey()}.tar.gz`);

export function readTemplate(): Blob | undefined {
  const file = templateFile();
  return fs.existsSync(file) ? new Blob([fs.readFileSync(file)]) : undefined;
}

/** Saves a migrated, still empty database as the template (written atomically). */
export async function saveTemplate(pglite: PGlite): Promise<void> {
  const file = templateFile();
  if (fs.existsSync(file)) return;
  const dump = await pglite.dumpDataDir('gzip');
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(tmp, file);
}

/** Builds the template if missing (postinstall): initdb plus migrations in memory, then dumped. */
export async function ensureTemplate(log: (msg: string) => void = () => undefined): Promise<void> {
  if (fs.existsSync(templateFile())) return;
  const pglite = new PGlite({ startParams: PGLITE_START_PARAMS });
  await applyPendingMigrations(new PrismaPGlite(pglite), { log });
  await saveTemplate(pglite);
  await pglite.close();
  log(`wrote ${path.relative(ROOT, templateFile())}`);
}
