import type { Prisma } from '../generated/prisma/client.ts';

/** A client inside an interactive transaction (`prisma.$transaction(async (tx) => …)`): what services and the provider write through. */
export type Tx = Prisma.TransactionClient;

/**
 * Options for interactive transactions that may queue behind others (PGlite runs one at a
 * time; PostgreSQL waits on row locks): wait longer for a connection than Prisma's 2 s default.
 */
export const TX_OPTIONS = { maxWait: 20_000, timeout: 30_000 } as const;

/** The code Prisma gives a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'P2002';
}
