// Bundles the server (src/cli.ts, everything it imports and its dependencies) into
// dist/server/cli.mjs with esbuild. Runs from postinstall; bin/svc.js uses the bundle while it
// is newer than every source file and falls back to running the sources through tsx, so a
// stale bundle is never run. One file instead of ~1,500 saves most of the module loading of a
// start (0.7 s → 0.3 s here). dist/server/ sits two levels below the root like src/<dir>/, so
// paths the code resolves from import.meta.url (prisma/, dist/dashboard/) hold in both. Files
// the server sends as they are (src/http/served-files.json) are copied beside the bundle.
import { buildSync } from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
  external: [
    // Loads its WebAssembly and file-system image from beside its own module.
    '@electric-sql/pglite',
    '@electric-sql/pglite/*',
    // Optional native add-ons of ws, required inside try/catch.
    'bufferutil',
    'utf-8-validate',
    // Only the source fallback of bin/svc.js uses it.
    'tsx',
    'tsx/*',
  ],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  // src/http/served-files.ts: the bundle reads what it serves from beside itself.
  define: { SVC_BUNDLE: 'true' },
  sourcemap: 'linked',
  logLevel: 'warning',
});
// What the server sends as it is (src/http/served-files.json): copied beside the bundle.
const served = JSON.parse(fs.readFileSync(path.join(root, 'src/http/served-files.json'), 'utf8'));
const resolvePackage = createRequire(path.join(root, 'package.json')).resolve;
/** `<package>/<path inside it>`, found from the package's package.json (its `exports` may not list the file). */
function packageFile(spec) {
  const parts = spec.split('/');
  const name = parts.slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const inside = parts.slice(name.split('/').length).join('/');
  return path.join(path.dirname(resolvePackage(`${name}/package.json`)), inside);
}
for (const [name, from] of Object.entries(served)) {
  const source = from.startsWith('src/') ? path.join(root, from) : packageFile(from);
  fs.copyFileSync(source, path.join(root, 'dist/server', name));
}
console.log(`server: bundled into dist/server/cli.mjs in ${Date.now() - started} ms`);
