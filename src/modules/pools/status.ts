import type { Tx } from '../../db/tx.ts';

/** A pool is active until it is deleted. */
export const POOL_STATES = ['active', 'deleted'] as const;

/** Whether a pool is active: servers inside a suspended or released pool cannot start. */
export async function isPoolActive(tx: Tx, poolId: string): Promise<boolean> {
  const pool = await tx.pool.findUnique({ where: { id: poolId }, select: { status: true } });
  return pool?.status === 'active';
}
