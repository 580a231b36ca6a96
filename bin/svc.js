#!/usr/bin/env node
// Entry point of `npx svc` and `npm start`. `svc login`, `logout` and `api` run
// user-commands.js; every other command runs the bundle from postinstall (dist/server/cli.mjs)
// when it is newer than every source file (src/ and bin/), otherwise the TypeScript sources through tsx — so an
// edit to src/ is never shadowed by an old bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { unsupportedNodeReason } from './runtime.js';

const unsupported = unsupportedNodeReason();
if (unsupported) {
  console.error(unsupported);
  process.exit(1);
}

// WebAssembly compilation (Prisma's query compiler, PGlite), set before any module is compiled.
// One background thread instead of one per core: the optimising compiler's memory stays with
// the process after start-up. On the embedded database, no function leaves the baseline
// compiler (the tier-up filter names a function index no module has): when one of PGlite's
// largest functions gets hot, V8's optimising compiler takes about 600 MB of transient memory
// for it alone, nearly tripling the process's peak. The baseline code is slower only on the
// heaviest statements (README: Read path, "Memory and start-up on the embedded database").
v8.setFlagsFromString('--wasm-num-compilation-tasks=1');
if (!process.env.DATABASE_URL) v8.setFlagsFromString('--wasm-tier-up-filter=2000000000');

// A person's commands (user-commands.js) import nothing of the server: they start without it.
const command = process.argv[2];

// The embedded server's young generation is capped at EMBEDDED_SEMI_SPACE_MB per semi-space.
// V8 sizes it from the machine's memory (larger than 16 MB on a 24 GB machine), and under load
// it grows to most of the 300 MB memory budget's overshoot; PGlite's WebAssembly memory already
// takes a large share of the process. V8 reads the size only at launch, so the process replaces
// itself once (process.execve: the same pid, stdio and environment) with the flag. PostgreSQL
// deployments keep V8's sizing, and a size the operator gives (NODE_OPTIONS or a flag) wins.
// README: Read path, "Memory and start-up on the embedded database".
const EMBEDDED_SEMI_SPACE_MB = 8;
if (command === 'serve' && !process.env.DATABASE_URL && typeof process.execve === 'function') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (!given.some((flag) => /^--max-semi-space-size\b/.test(flag))) {
    process.execve(
      process.execPath,
      [
        process.execPath,
        `--max-semi-space-size=${EMBEDDED_SEMI_SPACE_MB}`,
        ...process.execArgv,
        ...process.argv.slice(1),
      ],
      process.env,
    );
  }
}
if (command === 'login' || command === 'logout' || command === 'api') {
  const { runUserCommand } = await import('./user-commands.js');
  await runUserCommand(command, process.argv.slice(3));
} else {
  await runServerCli();
}

/** The server's commands (src/cli.ts): serve, mcp, admin. */
async function runServerCli() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const bundle = path.join(root, 'dist/server/cli.mjs');

  function newestSource(dir) {
    let newest = 0;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
      else if (/\.(ts|tsx|mjs|js|json)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
    return newest;
  }

  let useBundle = false;
  try {
    // bin/ too: the server's commands import bin/reach.js.
    useBundle =
      fs.statSync(bundle).mtimeMs >
      Math.max(newestSource(path.join(root, 'src')), newestSource(path.join(root, 'bin')));
  } catch {
    useBundle = false;
  }
  if (useBundle && process.env.SVC_FROM_SOURCE !== '1') {
    await import(bundle);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import('../src/cli.ts');
  }
}
