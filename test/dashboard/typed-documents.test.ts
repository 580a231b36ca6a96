import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

// The console's GraphQL documents are gql.tada graphql() calls (src/dashboard/graphql.ts). The
// build checks them as CI does (scripts/build-dashboard.mjs): `gql.tada check` validates each
// document against schema/schema.graphql, and tsc checks the code against the result and
// variable types the documents give. Here a probe file, beside the console but outside it, is
// checked the same way: with a misspelt field it fails, naming the field; spelt right it passes.

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const GQL_TADA = path.join(path.dirname(require.resolve('gql.tada/package.json')), 'bin/cli.js');
const TSC = require.resolve('typescript/bin/tsc');
const dir = mkdtempSync(path.join(tmpdir(), 'console-documents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A project of one file that reads a server's `field` with the console's graphql() and gql(). */
function probe(name: string, field: string): string {
  const project = path.join(dir, name);
  const dashboard = path.join(ROOT, 'src/dashboard');
  // Relative imports, as the console's own (tsc rewrites only those of a .ts extension).
  const from = (file: string) => JSON.stringify(path.relative(dir, path.join(dashboard, file)));
  writeFileSync(
    `${project}.ts`,
    `import { gql } from ${from('api.ts')};
import { graphql } from ${from('graphql.ts')};

const SERVER = graphql('query($id: ID!) { server(id: $id) { id ${field} } }');
export const label = async (id: string): Promise<string> => (await gql(SERVER, { id })).server.${field};
`,
  );
  writeFileSync(
    `${project}.json`,
    JSON.stringify({
      extends: path.join(dashboard, 'tsconfig.json'),
      compilerOptions: {
        plugins: [
          {
            name: 'gql.tada/ts-plugin',
            schema: path.join(ROOT, 'schema/schema.graphql'),
            tadaOutputLocation: path.join(dashboard, 'graphql-env.d.ts'),
          },
        ],
      },
      files: [`${project}.ts`],
      include: [],
    }),
  );
  return `${project}.json`;
}

/** The build's checks of a project (tsc only when asked): whether each passed and what it said. */
async function check(tsconfig: string) {
  const said = async (args: string[]) =>
    run(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).then(
      ({ stdout }) => ({ ok: true, out: stdout }),
      (err: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );
  return {
    documents: await said([GQL_TADA, 'check', '-c', tsconfig]),
    types: () => said([TSC, '--noEmit', '-p', tsconfig]),
  };
}

describe("the console's GraphQL documents are checked against the schema", () => {
  it('every document of the console passes', { timeout: 180_000 }, async () => {
    const { documents } = await check(path.join(ROOT, 'src/dashboard/tsconfig.json'));
    expect(documents.out).not.toMatch(/error|warn/i);
    expect(documents.ok).toBe(true);
  });

  it('a misspelt field fails the check, which names it and the type', { timeout: 180_000 }, async () => {
    const { documents } = await check(probe('misspelt', 'lable'));
    expect(documents.ok).toBe(false);
    expect(documents.out).toContain('Cannot query field "lable" on type "Server"');
  });

  it('the same document spelt right passes both checks, its result typed from the schema', {
    timeout: 180_000,
  }, async () => {
    const { documents, types } = await check(probe('right', 'label'));
    expect(documents).toEqual({ ok: true, out: expect.any(String) });
    expect(await types()).toEqual({ ok: true, out: '' });
  });
});
