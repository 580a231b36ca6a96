// Runs `prisma generate` after install. The Prisma CLI insists on a schema-engine binary it
// cannot download here; generate never uses it, so any existing file satisfies the check.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(import.meta.url);
// The pothos generator is a bin of @pothos/plugin-prisma; prisma finds it on PATH.
env.PATH = `${root}node_modules/.bin:${env.PATH ?? ''}`;
execFileSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
