import { PGlite } from '@electric-sql/pglite';
import { expect, it } from 'vitest';
import { PGLITE_START_PARAMS } from '../../src/db/pglite-template.ts';

it("the embedded database starts with PGlite's own parameters and a smaller buffer cache", async () => {
  const pglite = new PGlite({ startParams: PGLITE_START_PARAMS });
  try {
    const show = async (name: string) => (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
    expect(await show('shared_buffers')).toBe(process.env.PGLITE_SHARED_BUFFERS ?? '32MB');
    // PGlite's defaults (PGlite.defaultStartParams), which replacing its start parameters must keep.
    expect(await show('search_path')).toBe('public');
    expect(await show('max_worker_processes')).toBe('0');
    expect(await show('exit_on_error')).toBe('off');
  } finally {
    await pglite.close();
  }
});
