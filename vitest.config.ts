import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // One copy of graphql: Pothos, yoga and sofa must share the module or schemas "come from another realm".
    alias: { graphql: require.resolve('graphql/index.js') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own app and database; two at a time fits the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
