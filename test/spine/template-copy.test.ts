import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { copyTemplate, ensureTemplate, templateDir } from '../../src/db/pglite-template.ts';

// A new embedded database is a copy of the migrated template (src/db/pglite-template.ts), made
// several files at a time in a worker thread and renamed into place when complete.

/** Every file under `dir` with its size and content hash, relative paths sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        out.push(
          `${path.relative(dir, p)} ${fs.statSync(p).size} ${createHash('sha1').update(fs.readFileSync(p)).digest('hex')}`,
        );
    }
  };
  walk(dir);
  return out.sort();
}

describe('the embedded database template copy', () => {
  let root: string;
  let template: string[];
  beforeAll(async () => {
    await ensureTemplate();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-template-'));
    template = tree(templateDir());
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('copies every file of the template, byte for byte, and leaves nothing beside it', async () => {
    const dataDir = path.join(root, 'a', 'pgdata');
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    expect(await copyTemplate(dataDir)).toBe(true);
    expect(template.length).toBeGreaterThan(1000);
    expect(tree(dataDir)).toEqual(template);
    expect(fs.readdirSync(path.dirname(dataDir))).toEqual(['pgdata']);
  });

  it('discards what a copy cut short by a crash left behind, and what sat in the data directory', async () => {
    const dataDir = path.join(root, 'b', 'pgdata');
    fs.mkdirSync(`${dataDir}.partial/base`, { recursive: true });
    fs.writeFileSync(`${dataDir}.partial/base/half-written`, 'x');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'stray'), 'y');
    expect(await copyTemplate(dataDir)).toBe(true);
    expect(tree(dataDir)).toEqual(template);
    expect(fs.existsSync(`${dataDir}.partial`)).toBe(false);
  });

  it('runs while the caller goes on: opening a new database starts the copy before it is awaited', async () => {
    const pgdata = path.join(root, 'c', 'pgdata');
    const opening = openDatabase({ dataDir: path.join(root, 'c') });
    // The caller's synchronous work (app.ts builds the schema here), standing in as a busy wait:
    // the worker's copy appears meanwhile. Were the copy started after an await, it could not.
    const until = Date.now() + 10_000;
    while (!fs.existsSync(`${pgdata}.partial`) && Date.now() < until);
    expect(fs.existsSync(`${pgdata}.partial`)).toBe(true);
    const db = await opening;
    try {
      expect(await db.prisma.$queryRawUnsafe('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(fs.existsSync(`${pgdata}.partial`)).toBe(false);
    } finally {
      await db.close();
    }
  });
});
