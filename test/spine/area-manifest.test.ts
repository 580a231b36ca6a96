import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ID_PREFIX } from '../../src/db/ids.ts';
import { EVENT_TYPES, LIVE_CHANGE_TYPES } from '../../src/events/catalog.ts';
import { binaryRoutes } from '../../src/http/rest/binary-routes.ts';
import { AREA_TAGS } from '../../src/http/rest/openapi-guide.ts';
import { DEFAULT_TOOLSETS, OPERATION_TOOLSETS } from '../../src/mcp/catalog.ts';
import type { AreaManifest } from '../../src/core/area.ts';
import { AREAS } from '../../src/modules/areas.ts';
import { AREA_RUNTIMES, driverCallbacks } from '../../src/modules/runtimes.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { toolName } from '../../src/schema/tool-names.ts';
import { ALL_SCOPES, OPT_IN_SCOPES, SCOPES } from '../../src/scopes.ts';

/**
 * Areas declare themselves once (docs/DESIGN.md): every registry is composed from the manifests
 * of src/modules/areas.ts, and no module adds to a registry anywhere else. The first part checks
 * the composed registries against the manifests, the second scans the source for additions
 * made outside them.
 */
const manifests: readonly AreaManifest[] = AREAS;
const MODULES = path.resolve('src/modules');
const folders = fs
  .readdirSync(MODULES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const byName = new Map(manifests.map((m) => [m.name, m]));
const apiAreas = manifests.filter((m) => m.api);

/** Each value with the names of the manifests declaring it, for the ones declared more than once. */
function declaredTwice(pairs: [value: string, owner: string][]): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const [value, owner] of pairs) owners[value] = [...(owners[value] ?? []), owner];
  return Object.fromEntries(Object.entries(owners).filter(([, o]) => o.length > 1));
}

describe('the area manifests', () => {
  it('one per module folder, named as its folder, each listed once', () => {
    expect(manifests.map((m) => m.name).sort()).toEqual(folders);
    for (const folder of folders) {
      expect(fs.existsSync(path.join(MODULES, folder, 'manifest.ts')), `${folder}/manifest.ts`).toBe(true);
    }
  });

  it('every scope is owned by exactly one manifest, named after it, and the vocabulary is their union', () => {
    const pairs = manifests.flatMap((m) => Object.keys(m.scopes ?? {}).map((s) => [s, m.name] as [string, string]));
    expect(declaredTwice(pairs)).toEqual({});
    for (const [scope, owner] of pairs) expect(scope.split(':')[0], scope).toBe(owner);
    expect(ALL_SCOPES).toEqual(pairs.map(([s]) => s));
    expect(Object.values(SCOPES)).toEqual(manifests.flatMap((m) => Object.values(m.scopes ?? {})));
    for (const m of manifests) for (const s of m.optIn ?? []) expect(Object.keys(m.scopes ?? {})).toContain(s);
    expect([...OPT_IN_SCOPES].sort()).toEqual(manifests.flatMap((m) => m.optIn ?? []).sort());
  });

  it('every event kind is declared by exactly one manifest, readable with one of its own or borrowed scopes', () => {
    const pairs = manifests.flatMap((m) =>
      Object.keys(m.events?.kinds ?? {}).map((k) => [k, m.name] as [string, string]),
    );
    expect(declaredTwice(pairs)).toEqual({});
    expect(Object.keys(EVENT_TYPES).sort()).toEqual(pairs.map(([k]) => k).sort());
    for (const m of manifests) {
      for (const [kind, { scope }] of Object.entries(m.events?.kinds ?? {})) {
        expect([...Object.keys(m.scopes ?? {}), ...(m.api?.borrowedScopes ?? [])], `${kind}'s scope`).toContain(scope);
      }
    }
    const orders = manifests.flatMap((m) => (m.events ? [m.events.order] : []));
    expect(new Set(orders).size).toBe(orders.length);
  });

  it('every live-change kind is declared by exactly one manifest, readable with its scopes, and is no event kind', () => {
    const pairs = manifests.flatMap((m) =>
      Object.keys(m.events?.liveChanges ?? {}).map((k) => [k, m.name] as [string, string]),
    );
    expect(declaredTwice(pairs)).toEqual({});
    expect(Object.keys(LIVE_CHANGE_TYPES).sort()).toEqual(pairs.map(([k]) => k).sort());
    for (const m of manifests) {
      for (const [kind, { scope }] of Object.entries(m.events?.liveChanges ?? {})) {
        expect([...Object.keys(m.scopes ?? {}), ...(m.api?.borrowedScopes ?? [])], `${kind}'s scope`).toContain(scope);
        expect(Object.keys(EVENT_TYPES), kind).not.toContain(kind);
      }
    }
  });

  it('every id prefix is declared by exactly one manifest (or the provider layer), and no two kinds share one', () => {
    const kinds = manifests.flatMap((m) => Object.keys(m.idPrefixes ?? {}).map((k) => [k, m.name] as [string, string]));
    expect(declaredTwice(kinds)).toEqual({});
    const prefixes = Object.values(ID_PREFIX);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    const fromManifests = new Set(kinds.map(([k]) => k));
    // What is left is the provider layer's own (src/db/ids.ts), which is no module.
    expect(Object.keys(ID_PREFIX).filter((k) => !fromManifests.has(k))).toEqual(['providerJob', 'upstream']);
  });

  it('the OpenAPI tags are the API areas; the MCP toolsets are theirs and the ones manifests declare', () => {
    expect(AREA_TAGS).toEqual(apiAreas.map((m) => ({ name: m.name, description: m.api!.tag })));
    const declared = manifests.flatMap((m) => Object.entries(m.toolsets ?? {}).map(([name, t]) => ({ name, ...t })));
    const toolsets = [...apiAreas.map((m) => ({ name: m.name, ...m.api!.toolset })), ...declared];
    expect([...OPERATION_TOOLSETS].sort()).toEqual(toolsets.map((t) => t.name).sort());
    expect(DEFAULT_TOOLSETS).toEqual(
      toolsets
        .sort((a, b) => a.order - b.order)
        .filter((t) => t.offered === 'by default')
        .map((t) => t.name),
    );
    const orders = toolsets.map((t) => t.order);
    expect(new Set(orders).size).toBe(orders.length);
    // A declared toolset is no area's name, and some operation lists its tools there.
    for (const t of declared) {
      expect(apiAreas.map((m) => m.name)).not.toContain(t.name);
      expect(
        listOperations(getSchema()).some((op) => op.meta.toolset === t.name),
        t.name,
      ).toBe(true);
    }
  });

  it("every operation's area, scope and tool name belong to its manifest", () => {
    const wrong: string[] = [];
    for (const op of listOperations(getSchema())) {
      const m = byName.get(op.meta.area);
      if (!m?.api) {
        wrong.push(`${op.name}: area ${op.meta.area} has no api in its manifest`);
        continue;
      }
      const scopes = [...Object.keys(m.scopes ?? {}), ...(m.api.borrowedScopes ?? [])];
      if (!scopes.includes(op.meta.scope)) wrong.push(`${op.name}: scope ${op.meta.scope} is not ${m.name}'s`);
      if (!m.api.toolPrefixes.includes(op.meta.tool.split('_')[0]))
        wrong.push(`${op.name}: tool ${op.meta.tool} does not start with one of ${m.name}'s tool prefixes`);
    }
    expect(wrong).toEqual([]);
  });

  it("an operation's tool is named from its field's name and its area's tool prefixes", () => {
    expect(toolName('serverSnapshotCreate', { area: 'servers' })).toBe('server_snapshot_create');
    expect(toolName('serverSnapshots', { area: 'servers', toolVerb: 'list' })).toBe('server_snapshots_list');
    // The area's first prefix goes in front of a name that starts with none of them.
    expect(toolName('sshKeyAdd', { area: 'account' })).toBe('account_ssh_key_add');
    expect(toolName('poolCatalogue', { area: 'pools', tool: 'pools_catalogue' })).toBe('pools_catalogue');
    expect(() => toolName('pool', { area: 'pools', tool: 'pool_get', toolVerb: 'get' })).toThrow(/not both/);
  });

  it('runtimes: each hands in exactly what its manifest names', () => {
    expect(AREA_RUNTIMES.map((r) => r.area).sort()).toEqual(
      manifests
        .filter((m) => m.runtime)
        .map((m) => m.name)
        .sort(),
    );
    for (const runtime of AREA_RUNTIMES) {
      const declared = byName.get(runtime.area)!.runtime!;
      expect(runtime.renewal?.purpose, runtime.area).toBe(declared.renewalPurpose);
      expect(runtime.binaryRoutes?.map((r) => r.operationId) ?? [], runtime.area).toEqual(declared.binaryRoutes ?? []);
      for (const route of runtime.binaryRoutes ?? []) {
        expect(route.area, route.operationId).toBe(runtime.area);
        expect(Object.keys(byName.get(runtime.area)!.scopes ?? {}), route.operationId).toContain(route.scope);
      }
      expect(Object.keys(runtime.jobHandlers ?? {}), runtime.area).toEqual(declared.jobs ?? []);
      expect(Object.keys(runtime.providerCallbacks ?? {}), runtime.area).toEqual(declared.providerCallbacks ?? []);
    }
    expect(binaryRoutes().map((r) => r.operationId)).toEqual(manifests.flatMap((m) => m.runtime?.binaryRoutes ?? []));
    expect(Object.keys(driverCallbacks()).sort()).toEqual(['hostingDriver', 'serverDriver']);
    const jobs = manifests.flatMap((m) => (m.runtime?.jobs ?? []).map((j) => [j, m.name] as [string, string]));
    expect(declaredTwice(jobs)).toEqual({});
  });
});

/** Every .ts file under src/ (generated code aside), relative to the repository. */
function sourceFiles(dir = 'src'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const file = path.join(dir, d.name);
    if (d.isDirectory()) return file === path.join('src', 'generated') ? [] : sourceFiles(file);
    return /\.tsx?$/.test(d.name) ? [file] : [];
  });
}
const isManifest = (file: string) => /^src\/modules\/([^/]+\/manifest|areas)\.ts$/.test(file);
const names = manifests.map((m) => m.name);

describe('no module adds to a registry outside its manifest', () => {
  const files = sourceFiles().filter((f) => !isManifest(f));
  const read = (file: string) => fs.readFileSync(file, 'utf8');

  it('every id is made with a declared prefix (ID_PREFIX), never a literal one', () => {
    const literal = files.flatMap((f) =>
      [...read(f).matchAll(/newId\(\s*['"`]/g)].map((m) => `${f}: ${read(f).slice(m.index, m.index + 30)}`),
    );
    expect(literal).toEqual([]);
  });

  it('an area names only its own area, and only its own or borrowed scopes, in its operations', () => {
    const wrong: string[] = [];
    for (const file of files.filter((f) => f.startsWith('src/modules/'))) {
      const folder = file.split('/')[2];
      const m = byName.get(folder);
      if (!m) continue;
      const text = read(file);
      // Operations take their area from the manifest they are bound to (operationsOf): never by name.
      const bindings = /(^|\/)([^/]+[.])?schema[.]ts$/.test(file);
      for (const [, area] of text.matchAll(/\barea: '([a-z]+)'/g))
        if (bindings || area !== folder) wrong.push(`${file}: area ${area}`);
      for (const [, manifest] of text.matchAll(/\boperationsOf\((\w+)\)/g))
        if (manifest !== `${folder}Area`) wrong.push(`${file}: operationsOf(${manifest})`);
      for (const [, scope] of text.matchAll(/\bscope: '([a-z]+:[a-z]+)'/g)) {
        const own = [...Object.keys(m.scopes ?? {}), ...(m.api?.borrowedScopes ?? [])];
        if (!own.includes(scope)) wrong.push(`${file}: scope ${scope}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no file outside the manifests declares an event kind, a scope or an id prefix table', () => {
    const wrong: string[] = [];
    const scopeDeclaration = /^\s*'[a-z]+:(read|write|destroy|manage)':\s*'/m;
    const eventDeclaration = /^\s*'[a-z]+(\.[a-z]+)+':\s*\{\s*scope:/m;
    const prefixTable = /^\s*[a-zA-Z]+:\s*'[a-z]{1,5}',\s*$/m;
    for (const file of files) {
      const text = read(file);
      if (scopeDeclaration.test(text)) wrong.push(`${file}: declares a scope`);
      if (eventDeclaration.test(text)) wrong.push(`${file}: declares an event kind`);
      if (/ID_PREFIX\s*=/.test(text) && prefixTable.test(text) && file !== 'src/db/ids.ts')
        wrong.push(`${file}: declares id prefixes`);
    }
    expect(wrong).toEqual([]);
  });

  it('the registries name no area: they read the list', () => {
    const registries = [
      'src/scopes.ts',
      'src/events/catalog.ts',
      'src/db/ids.ts',
      'src/schema/operation.ts',
      'src/mcp/catalog.ts',
      'src/mcp/artifact.ts',
      'src/http/rest/openapi-guide.ts',
      'src/http/rest/openapi.ts',
      'src/http/rest/binary-routes.ts',
      'src/http/rest/rest-routes.ts',
      'src/app.ts',
      'src/background.ts',
      'src/modules/billing/renewals.ts',
    ];
    // A quoted area name as a value (`'events' in a` tests a manifest's key, and prose is no name).
    const quoted = new RegExp(`'(${names.join('|')})'(?! in )`, 'g');
    const named = registries.flatMap((f) => [...read(f).matchAll(quoted)].map((m) => `${f}: ${m[0]}`));
    expect(named).toEqual([]);
    // Nothing outside the runtimes list imports an area's runtime.ts, nor another area's manifest but the list.
    for (const file of files.filter((f) => f !== 'src/modules/runtimes.ts')) {
      expect(read(file), file).not.toMatch(/from '[./]*\/?(modules\/)?[a-z]+\/runtime\.ts'/);
    }
  });

  it('the schema loads every area schema.ts, then every graph.ts, and nothing else', () => {
    const text = read('src/schema/index.ts');
    const imported = [...text.matchAll(/^import '\.\.\/modules\/([a-z]+)\/(schema|graph)\.ts';$/gm)].map(
      (m) => `${m[1]}/${m[2]}`,
    );
    const expected = (part: string) =>
      folders.filter((f) => fs.existsSync(path.join(MODULES, f, `${part}.ts`))).map((f) => `${f}/${part}`);
    const schemas = imported.filter((i) => i.endsWith('/schema'));
    const graphs = imported.filter((i) => i.endsWith('/graph'));
    expect([...schemas].sort()).toEqual(expected('schema'));
    expect([...graphs].sort()).toEqual(expected('graph'));
    // The graph's edges join types of several areas: they load after every type.
    expect(imported).toEqual([...schemas, ...graphs]);
  });
});
