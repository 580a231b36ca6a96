// Builds the dashboard (src/dashboard, Preact) with Vite into dist/dashboard/. Runs from
// postinstall, so `npm ci && npm start` serves it with no extra step. Without the dev
// dependencies (npm ci --omit=dev) it says so and leaves the dashboard unbuilt.
// First it checks the console (src/dashboard/tsconfig.json): `gql.tada check` validates every
// graphql() document against schema/schema.graphql (a misspelt field, an unknown argument, a
// variable of the wrong type) and tsc checks the code against the documents' result and
// variable types, so a document the schema does not answer fails the build (and with it
// `npm ci` in CI) instead of a page at run time.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('dashboard: vite is not installed (dev dependencies omitted?); the dashboard is not built.');
  process.exit(0);
}
const started = Date.now();
const require = createRequire(import.meta.url);
const tsconfig = `${root}src/dashboard/tsconfig.json`;
const checks = [
  [require.resolve('gql.tada/package.json').replace(/package\.json$/, 'bin/cli.js'), 'check', '-c', tsconfig],
  [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', tsconfig],
];
for (const args of checks) {
  try {
    execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    process.stderr.write(err.stdout ?? '');
    console.error('dashboard: its GraphQL documents or types do not check (above); the dashboard is not built.');
    process.exit(1);
  }
}
await vite.build({ configFile: `${root}src/dashboard/vite.config.ts`, logLevel: 'warn' });
console.log(`dashboard: checked and built into dist/dashboard/ in ${Date.now() - started} ms`);
