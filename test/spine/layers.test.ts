import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CRUISER = path.resolve('node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.resolve('.dependency-cruiser.cjs');

/** Cruises `src` under `cwd` with the project's rules; the violations as `rule: from → to` lines. */
function cruise(cwd: string) {
  const run = spawnSync(process.execPath, [CRUISER, 'src', '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  expect(run.error).toBeUndefined();
  const result = JSON.parse(run.stdout);
  const violations: string[] = result.summary.violations.map(
    (v: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }) =>
      `${v.rule.name}: ${v.from} → ${v.cycle?.length ? v.cycle.map((c) => c.name).join(' → ') : v.to}`,
  );
  return { result, violations };
}

/**
 * The house's layers and no import cycles (.dependency-cruiser.cjs): every file under src/ is
 * cruised with TypeScript's own resolution, type-only imports included.
 */
describe('layers', () => {
  it('src/ has no import cycle and no file imports a layer above its own', () => {
    const { result, violations } = cruise(process.cwd());
    expect(violations).toEqual([]);
    // It really read the tree (a wrong path or config would cruise nothing and pass).
    expect(result.summary.totalCruised).toBeGreaterThan(150);
    expect(result.summary.ruleSetUsed.forbidden.map((r: { name: string }) => r.name)).toContain(
      'services-never-load-pothos',
    );
  });

  it('a service that reaches Pothos, even through a schema helper, breaks the rules; a schema file does not', () => {
    // A tree of its own, shaped like this one: the service pages through a helper that loads the builder.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true },
        }),
        'src/schema/builder.ts': 'export const builder = {};\n',
        'src/schema/pagination.ts': "import { builder } from './builder.ts';\nexport const paginate = () => builder;\n",
        'src/core/paging.ts': 'export const paginate = () => null;\n',
        'src/modules/things/service.ts':
          "import { paginate } from '../../schema/pagination.ts';\nexport const list = () => paginate();\n",
        'src/modules/things/rules.ts':
          "import { paginate } from '../../core/paging.ts';\nexport const list = () => paginate();\n",
        'src/modules/things/schema.ts':
          "import { builder } from '../../schema/builder.ts';\nimport { list } from './rules.ts';\nexport const field = [builder, list];\n",
        'src/modules/things/graph.ts':
          "import { builder } from '../../schema/builder.ts';\nexport const node = builder;\n",
      };
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      const { violations } = cruise(dir);
      expect(violations.sort()).toEqual([
        'services-never-import-the-schema: src/modules/things/service.ts → src/schema/pagination.ts',
        'services-never-load-pothos: src/modules/things/service.ts → src/schema/builder.ts',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a transport reaching the database, a layer importing a transport and the console reaching the server break the rules', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true },
        }),
        'src/db/tenant.ts': 'export type TenantDb = object;\nexport const tenantClient = () => ({});\n',
        'src/http/reads.ts': "import { tenantClient } from '../db/tenant.ts';\nexport const read = tenantClient;\n",
        'src/http/typed.ts':
          "import type { TenantDb } from '../db/tenant.ts';\nexport const typed = (db: TenantDb) => db;\n",
        'src/modules/things/service.ts': "import { read } from '../../http/reads.ts';\nexport const list = read;\n",
        'src/scopes.ts': 'export const SCOPES = [];\n',
        'src/dashboard/page.tsx':
          "import { SCOPES } from '../scopes.ts';\nimport { read } from '../http/reads.ts';\nexport const page = [SCOPES, read];\n",
      };
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      const { violations } = cruise(dir);
      expect(violations.sort()).toEqual([
        'modules-imports-only-below: src/modules/things/service.ts → src/http/reads.ts',
        'the-console-is-a-browser-app: src/dashboard/page.tsx → src/db/tenant.ts',
        'the-console-is-a-browser-app: src/dashboard/page.tsx → src/http/reads.ts',
        'transports-reach-data-through-services: src/http/reads.ts → src/db/tenant.ts',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
