import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OWN_MODULES } from '../../vitest.config.ts';

/**
 * Test files share their worker's loaded modules (vitest.config.ts, isolate: false), so a
 * module replaced with vi.mock in one of them could already be loaded, unreplaced, by an
 * earlier file: every file that replaces a module must run in the isolated project.
 */
describe('test isolation', () => {
  it('every test file that replaces a module (vi.mock, vi.doMock) is in OWN_MODULES, and only those', () => {
    const files = (fs.readdirSync('test', { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.posix.join('test', f.split(path.sep).join('/')));
    const mocking = files.filter((f) => /\bvi\.(do)?[mM]ock\(/.test(fs.readFileSync(f, 'utf8'))).sort();
    expect(mocking).toEqual([...OWN_MODULES].sort());
  });
});
