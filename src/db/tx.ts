import type { Prisma } from '../generated/prisma/client.ts';

/** A client inside an interactive transaction (`prisma.$transaction(async (tx) => …)`): what services and the provider write through. */
export type Tx = Prisma.TransactionClient;

/** The code Prisma gives a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'P2002';
}
