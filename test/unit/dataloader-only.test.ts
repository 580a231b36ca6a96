import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/schema/context.ts';
import { requestLoader } from '../../src/schema/graph.ts';

/**
 * Batching goes through @pothos/plugin-dataloader only (issue 43): its loadable fields and
 * objects, or `requestLoader` (src/schema/node-kinds.ts), the plugin's own per-request getter.
 * No file under src/ makes a DataLoader by hand or imports the `dataloader` package.
 */

/** Every .ts and .tsx file under src/ (generated code aside). */
function sourceFiles(dir = 'src'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const file = path.join(dir, d.name);
    if (d.isDirectory()) return file === path.join('src', 'generated') ? [] : sourceFiles(file);
    return /\.tsx?$/.test(d.name) ? [file] : [];
  });
}

/** A DataLoader made by hand, or the package imported (statically, dynamically or required). */
const HAND_MADE = [
  /\bnew\s+DataLoader\b/,
  /\bfrom\s+['"]dataloader['"]/,
  /\bimport\s*\(\s*['"]dataloader['"]\s*\)/,
  /\brequire\s*\(\s*['"]dataloader['"]\s*\)/,
  /^\s*import\s+['"]dataloader['"]/m,
];
const handMade = (text: string) => HAND_MADE.some((re) => re.test(text));

describe('batching through @pothos/plugin-dataloader only', () => {
  it('no file under src/ makes a DataLoader by hand or imports dataloader', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(150);
    const wrong = files.filter((f) => handMade(fs.readFileSync(f, 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('the scan sees each way of making one', () => {
    for (const text of [
      "import DataLoader from 'dataloader';",
      'import type { Options } from "dataloader";',
      'const loader = new DataLoader(async (ids) => ids);',
      "const { default: D } = await import('dataloader');",
      "const D = require('dataloader');",
    ])
      expect(handMade(text), text).toBe(true);
    expect(handMade("import { dataloaderGetter } from '@pothos/plugin-dataloader';")).toBe(false);
  });

  it('requestLoader: one loader and one batch per request, never shared between requests', async () => {
    const batches: string[][] = [];
    const loader = requestLoader<string, string>(async (ids, ctx) => {
      batches.push([...ids]);
      return ids.map((id) => `${(ctx as unknown as { tenant: string }).tenant}:${id}`);
    });
    const a = { tenant: 'acc_a' } as unknown as RequestContext;
    const b = { tenant: 'acc_b' } as unknown as RequestContext;
    expect(loader(a)).toBe(loader(a));
    expect(loader(a)).not.toBe(loader(b));
    expect(await Promise.all([loader(a).load('1'), loader(a).load('2'), loader(a).load('1')])).toEqual([
      'acc_a:1',
      'acc_a:2',
      'acc_a:1',
    ]);
    // The other request's loader reads through its own context, whatever the first one cached.
    expect(await loader(b).load('1')).toBe('acc_b:1');
    expect(batches).toEqual([['1', '2'], ['1']]);
  });
});
