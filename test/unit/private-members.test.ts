import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The dependencies whose non-public members the code still uses (docs/DESIGN.md: Private
 * members we still rely on), each pinned to one exact version. An upgrade, or the member gone,
 * fails here, naming the dependency, the version and the file to re-check.
 */
const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const resolve = createRequire(path.join(root, 'package.json')).resolve;

/** The installed version of `name`, read beside the module `entry` resolves to (its `exports` may hide package.json). */
function installedVersion(name: string, entry: string): string {
  let dir = path.dirname(resolve(entry));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const found = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  expect(found.name).toBe(name);
  return found.version;
}

function expectPinned(name: string, entry: string, version: string, recheck: string): void {
  const why = `${name} ${version} is pinned: ${recheck}; then update the pin here, in package.json and in docs/DESIGN.md`;
  expect(pkg.dependencies[name] ?? pkg.devDependencies[name], why).toBe(version);
  expect(lock.packages[`node_modules/${name}`]?.version, why).toBe(version);
  expect(installedVersion(name, entry), why).toBe(version);
}

describe('@prisma/schema-engine-wasm: its wasm-bindgen start-up, by hand (src/db/schema-engine.ts)', () => {
  const name = '@prisma/schema-engine-wasm';
  const version = '8.1.0-2.59be4fda12412a79eeb9c2ae727b6aa723593323';
  const recheck =
    "src/db/schema-engine.ts instantiates its .wasm and calls the glue's __wbg_set_wasm and the module's __wbindgen_start, as the package's entry does";

  it('is the pinned version', () => {
    expectPinned(name, `${name}/schema_engine_bg`, version, recheck);
  });

  it("the package's entry still starts the module the way schema-engine.ts repeats", async () => {
    const glue = resolve(`${name}/schema_engine_bg`);
    const entry = fs.readFileSync(path.join(path.dirname(glue), 'schema_engine.js'), 'utf8');
    const why = `${name} ${version}: ${recheck}`;
    expect(entry, why).toContain('import * as wasm from "./schema_engine_bg.wasm"');
    expect(entry, why).toContain('__wbg_set_wasm(wasm)');
    expect(entry, why).toContain('wasm.__wbindgen_start()');
    expect(fs.existsSync(path.join(path.dirname(glue), 'schema_engine_bg.wasm')), why).toBe(true);
    const bg = await import(`${name}/schema_engine_bg`);
    expect(typeof bg.__wbg_set_wasm, why).toBe('function');
  });
});

describe("pglite-prisma-adapter: given the app's client, not a PGlite (src/db/client.ts, migration-targets.ts)", () => {
  const name = 'pglite-prisma-adapter';
  const version = '0.7.2';
  const recheck =
    "src/db/pglite-fast-client.ts's AdapterClient/EmbeddedClient must implement every member the adapter calls on its client";

  it('is the pinned version', () => {
    expectPinned(name, name, version, recheck);
  });

  it("calls on its client only what the app's client implements", () => {
    const source = fs.readFileSync(resolve(name).replace(/index\.c?js$/, 'index.mjs'), 'utf8');
    const why = `${name} ${version}: ${recheck}`;
    // `client` is the adapter's PGlite (or a transaction: rollback), `conn` the same in startTransactionInner.
    const called = new Set([...source.matchAll(/\b(?:client|conn)\.(\w+)\(/g)].map((m) => m[1]));
    expect([...called].sort(), why).toEqual(['exec', 'query', 'rollback', 'transaction']);
  });
});
