// `npm ci` / `npm install` postinstall: everything `npm start` and `npm test` need, built from
// the sources with no network: the Prisma client, the server bundle, the dashboard, and the
// embedded database template (initdb + migrations, see src/db/pglite-template.ts).
// First: on an unsupported Node, stop before building anything (engine-strict in .npmrc
// already refuses `npm ci`; this holds for an install run with it overridden).
import './check-node.mjs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
run('scripts/prisma-generate.mjs');
run('scripts/build-server.mjs');
run('scripts/build-dashboard.mjs');
run('--import', 'tsx', 'scripts/warm-template.ts');
