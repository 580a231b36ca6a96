import path from 'node:path';
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The dashboard (Preact), built into dist/dashboard/ (git-ignored) by `npm run build:dashboard`, which `npm ci` runs. */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: path.resolve(here, '../../dist/dashboard'),
    emptyOutDir: true,
    // No inline scripts or data: modules, so the CSP can be `script-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
