import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

/** The house rule: no source or test file over 450 lines (README: Working on it). */
const MAX_LINES = 450;

describe('file size', () => {
  it(`keeps every tracked source, test, script and benchmark file at ${MAX_LINES} lines or fewer`, () => {
    const files = execFileSync('git', ['ls-files', 'src', 'test', 'bin', 'scripts', 'bench', 'examples'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|tsx|js|mjs)$/.test(f) && !f.endsWith('.d.ts')); // .d.ts: generated (typed client)
    expect(files.length).toBeGreaterThan(300);
    const over = files
      .map((f) => ({ f, lines: fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(over).toEqual([]);
  });
});
