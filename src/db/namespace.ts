import { createHash } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';

/**
 * A short name for the database this instance serves, used to keep what instances share in
 * Redis (channels, counters) apart from other deployments — or test runs — that use the
 * same Redis with another database. Instances of one deployment compute the same name.
 */
export async function databaseNamespace(prisma: PrismaClient, databaseUrl: string | undefined): Promise<string> {
  if (!databaseUrl) return 'embedded';
  const [{ db }] = await prisma.$queryRaw<{ db: string }[]>`SELECT current_database() AS db`;
  const url = new URL(databaseUrl);
  return createHash('sha256')
    .update(`${url.hostname}:${url.port || 5432}/${db}`)
    .digest('hex')
    .slice(0, 12);
}
