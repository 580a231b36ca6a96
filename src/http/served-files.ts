import { createRequire } from 'node:module';
import path from 'node:path';
import SERVED_FILES from './served-files.json' with { type: 'json' };

/** Defined (true) by scripts/build-server.mjs in the bundle only. */
declare const SVC_BUNDLE: boolean | undefined;
const BUNDLED = typeof SVC_BUNDLE !== 'undefined';

/**
 * The repository root: two levels above src/http/ and dist/server/ alike. This file stays at the
 * top of src/http/ for that: what the server finds from the root is resolved here.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const resolvePackage = createRequire(import.meta.url).resolve;

export type ServedFile = keyof typeof SERVED_FILES;

/** Where `vite build` writes the dashboard (git-ignored; built by npm ci's postinstall). */
export const DASHBOARD_DIST = path.resolve(import.meta.dirname, '../../dist/dashboard');

/**
 * Where a file the server sends as it is (a page's script, a vendored library) lives. The list
 * (served-files.json) is the one the build copies from: in the bundle each file sits beside it in
 * dist/server/, so a built server never reads src/ or node_modules for what it serves; run from
 * the sources, each is read where it lives (src/http/pages/, or its package).
 */
export function servedFilePath(name: ServedFile): string {
  if (BUNDLED) return path.join(import.meta.dirname, name);
  const from = SERVED_FILES[name];
  return from.startsWith('src/') ? path.join(ROOT, from) : packageFile(from);
}

/** `<package>/<path inside it>`, found from the package's package.json (its `exports` may not list the file). */
function packageFile(spec: string): string {
  const parts = spec.split('/');
  const name = parts.slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const inside = parts.slice(name.split('/').length).join('/');
  return path.join(path.dirname(resolvePackage(`${name}/package.json`)), inside);
}
