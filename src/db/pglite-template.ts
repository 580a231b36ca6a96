import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import { OS_TEMPLATES, PRODUCTS, seedCatalogue } from './catalogue-seed.ts';
import { applyPendingMigrations, MIGRATIONS_DIR } from './migrate.ts';
import { pgliteTarget } from './migration-targets.ts';

/** Marks the line of the data directory's postgresql.conf this service writes (setBufferCache). */
const OWN_SETTING = '# cloud-account-api: PGLITE_SHARED_BUFFERS';

/**
 * A 32 MB buffer cache (PGLITE_SHARED_BUFFERS) instead of PostgreSQL's 128 MB default, set in the
 * data directory's own postgresql.conf — PostgreSQL's way to configure a server, where the last
 * line naming a setting wins — before PGlite starts on it, so PGlite keeps its own start
 * parameters. The embedded database's files sit in the OS page cache anyway, and the
 * WebAssembly heap never shrinks, so this is most of the process's memory. A directory initdb
 * has not made yet has no postgresql.conf: its first start keeps the default.
 */
export function setBufferCache(dataDir: string, size = process.env.PGLITE_SHARED_BUFFERS ?? '32MB'): void {
  const conf = path.join(dataDir, 'postgresql.conf');
  if (!fs.existsSync(conf)) return;
  const text = fs.readFileSync(conf, 'utf8');
  const kept = text.split('\n').filter((line) => !line.endsWith(OWN_SETTING));
  while (kept.at(-1) === '') kept.pop();
  const next = `${kept.join('\n')}\nshared_buffers = '${size.replace(/'/g, "''")}'  ${OWN_SETTING}\n`;
  if (next !== text) fs.writeFileSync(conf, next);
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'cloud-account-api');

/**
 * A fresh embedded database starts from a template: a data directory that has been through
 * initdb and every migration and holds the catalogue, copied into place. initdb is most of a cold start (seconds of
 * WebAssembly) and its result is the same every time, so it is made once (by `npm ci`'s
 * postinstall, or by the first start) and kept under node_modules/.cache, keyed by the
 * PGlite version, its start parameters, the migrations and the catalogue seed. A plain
 * directory copy is faster than PGlite's tarball loader. A stale or missing template only
 * costs time.
 */
function templateKey(): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version,
  );
  for (const folder of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    const file = path.join(MIGRATIONS_DIR, folder, 'migration.sql');
    if (fs.existsSync(file)) hash.update(folder).update(fs.readFileSync(file));
  }
  hash.update(JSON.stringify([PRODUCTS, OS_TEMPLATES]));
  return hash.digest('hex').slice(0, 16);
}

export const templateDir = () => path.join(CACHE_DIR, `pglite-${templateKey()}`);

/** Whether the migrated template is built (synchronous: see openDatabase in client.ts). */
export const hasTemplate = (template = templateDir()) => fs.existsSync(path.join(template, 'PG_VERSION'));

/**
 * Copies the template into the (empty) data directory; false when there is no template. The
 * copy (40 MB, ~1,200 files) runs in a worker thread, so the caller's start-up work goes on
 * meanwhile, several files at a time: file by file it took 0.2 to 1.3 s on the 2-core machines
 * here, almost all of it kernel time per file, and 8 at a time 0.13 s. It lands beside
 * `dataDir` before it is renamed into place, so a crash mid-copy never leaves half a database.
 */
export async function copyTemplate(dataDir: string): Promise<boolean> {
  const template = templateDir();
  if (!hasTemplate(template)) return false;
  const partial = `${dataDir}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  const worker = new Worker(COPY_TREE_WORKER, {
    eval: true,
    workerData: { from: template, to: partial, concurrency: 8 },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`template copy exited with ${code}`))));
  });
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.renameSync(partial, dataDir);
  return true;
}

// Plain JavaScript (evaluated as the worker's script): the directories first, then the files
// with `concurrency` copies in flight on libuv's thread pool.
const COPY_TREE_WORKER = `
const fs = require('node:fs');
const path = require('node:path');
const { from, to, concurrency } = require('node:worker_threads').workerData;
const files = [];
const walk = (src, dst) => {
  fs.mkdirSync(dst, { recursive: true });
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(path.join(src, entry.name), path.join(dst, entry.name));
    else files.push([path.join(src, entry.name), path.join(dst, entry.name)]);
  }
};
walk(from, to);
let next = 0;
const copier = async () => {
  while (next < files.length) {
    const [src, dst] = files[next++];
    await fs.promises.copyFile(src, dst, fs.constants.COPYFILE_FICLONE);
  }
};
// A failed copy rejects unhandled: the worker dies of it, and copyTemplate rejects with the error.
Promise.all(Array.from({ length: concurrency }, copier));
`;

/** Builds the template if missing: initdb, migrations and the catalogue in a scratch directory, then moved into place. */
export async function ensureTemplate(log: (msg: string) => void = () => undefined): Promise<void> {
  const template = templateDir();
  if (hasTemplate(template)) return;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(CACHE_DIR, 'building-'));
  try {
    const pglite = new PGlite(scratch);
    await applyPendingMigrations(pgliteTarget(pglite), { log });
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    await seedCatalogue(prisma);
    await prisma.$disconnect();
    await pglite.close();
    fs.renameSync(scratch, template);
    log(`wrote ${path.relative(ROOT, template)}`);
  } catch (err) {
    fs.rmSync(scratch, { recursive: true, force: true });
    // Another process built it meanwhile: fine.
    if (!hasTemplate(template)) throw err;
  }
}
