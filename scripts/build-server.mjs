// Bundles the server (src/cli.ts and everything it imports, node_modules left external) into
// dist/server/cli.mjs with esbuild. Runs from postinstall; bin/svc.js uses the bundle while it
// is newer than every source file and falls back to running the sources through tsx, so a
// stale bundle is never run. It saves about a second of start-up (no per-file transform).
// dist/server/ sits two levels below the root like src/<dir>/, so paths the code resolves
// from import.meta.url (prisma/, dist/dashboard/) hold in both.
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
buildSync({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: 'dist/server/cli.mjs',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
console.log(`server: bundled into dist/server/cli.mjs in ${Date.now() - started} ms`);
