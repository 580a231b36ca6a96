import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { unsupportedNodeReason } from './bin/runtime.js';

// `npm test` on an unsupported Node stops here with one clear line, before any test file loads
// (the suite would otherwise fail file by file on APIs older Node lacks). npm's pretest says the
// same; this also covers `npx vitest`.
const unsupported = unsupportedNodeReason();
if (unsupported) {
  console.error(unsupported);
  process.exit(1);
}

const require = createRequire(import.meta.url);

/** Files that replace a module (vi.mock) for themselves: they need modules loaded afresh. */
export const OWN_MODULES = ['test/security/timing.test.ts'];
const CONSOLE = 'test/console/**/*.test.ts';
/**
 * Files whose result cannot depend on the database the suite runs on: static checks of the code
 * and the build, and PGlite's own client. A project of their own, so CI's PostgreSQL run leaves
 * them out (`--project '!once'`, .ci/run) instead of repeating the embedded run exactly.
 */
const ONCE = [
  'test/dashboard/typed-documents.test.ts',
  'test/readme/typed-client.test.ts',
  'test/spine/layers.test.ts',
  'test/spine/file-size.test.ts',
  'test/spine/built-server-files.test.ts',
  'test/db/pglite-client.test.ts',
  'test/unit/pglite-buffer-cache.test.ts',
  'test/printed-schema.test.ts',
];

export default defineConfig({
  resolve: {
    // One copy of graphql: Pothos, yoga and sofa must share the module or schemas "come from another realm".
    alias: { graphql: require.resolve('graphql/index.js') },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A page or a worker answers later when both suites share the machine (.ci/run): vitest's
    // one-second default for expect.poll failed tests that were only slow.
    expect: { poll: { timeout: 10_000 } },
    // Each file starts its own app and database. Three at a time on the 2-core machines: with
    // two, a file waiting on a timer, a child process or the browser left the CPU idle about a
    // quarter of the run; a third worker took the embedded run from 595 to 509 s.
    pool: 'forks',
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        // A worker runs file after file with the modules it has loaded (the app, Prisma's client,
        // the built schema): loading them afresh for every file was a large part of the suite's CPU.
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...OWN_MODULES, CONSOLE, ...ONCE],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'once', include: ONCE, isolate: false } },
      // The console's Chromium tests: a project of their own, so a run can leave them out
      // (`--project '!console'`: .ci/run's PostgreSQL run, see there).
      { extends: true, test: { name: 'console', include: [CONSOLE], isolate: false } },
      { extends: true, test: { name: 'isolated', include: OWN_MODULES, isolate: true } },
    ],
  },
});
