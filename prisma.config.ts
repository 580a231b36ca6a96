import { defineConfig } from 'prisma/config';

// Only `prisma generate` uses this file; the app applies migrations itself (src/db/migrate.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
