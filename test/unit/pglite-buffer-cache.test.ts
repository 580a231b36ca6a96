import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { expect, it } from 'vitest';
import { setBufferCache } from '../../src/db/pglite-template.ts';

it("the embedded database starts with PGlite's own parameters and the buffer cache its postgresql.conf sets", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-conf-'));
  const started = async () => {
    const pglite = new PGlite(dir);
    const show = async (name: string) => (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
    const settings = {
      shared_buffers: await show('shared_buffers'),
      // PGlite's own start parameters, untouched.
      search_path: await show('search_path'),
      max_worker_processes: await show('max_worker_processes'),
      exit_on_error: await show('exit_on_error'),
    };
    await pglite.close();
    return settings;
  };
  try {
    const own = { search_path: 'public', max_worker_processes: '0', exit_on_error: 'off' };
    // initdb's first start: PostgreSQL's default.
    expect(await started()).toEqual({ shared_buffers: '128MB', ...own });
    setBufferCache(dir, '32MB');
    expect(await started()).toEqual({ shared_buffers: '32MB', ...own });
    // Set again with another size: one line of ours, the last one.
    setBufferCache(dir, '48MB');
    setBufferCache(dir, '48MB');
    expect(await started()).toEqual({ shared_buffers: '48MB', ...own });
    const conf = fs.readFileSync(path.join(dir, 'postgresql.conf'), 'utf8');
    expect(conf.match(/cloud-account-api/g)).toHaveLength(1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
