// Builds the dashboard (src/dashboard, Preact) with Vite into dist/dashboard/. Runs from
// postinstall, so `npm ci && npm start` serves it with no extra step. Without the dev
// dependencies (npm ci --omit=dev) it says so and leaves the dashboard unbuilt.
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
await vite.build({ configFile: `${root}src/dashboard/vite.config.ts`, logLevel: 'warn' });
console.log(`dashboard: built into dist/dashboard/ in ${Date.now() - started} ms`);
