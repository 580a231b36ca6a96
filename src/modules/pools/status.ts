import type { Tx } from '../../provider/types.ts';

/** Whether a pool is active: servers inside a suspended or released pool cannot start. */
export async function isPoolActive(tx: Tx, poolId: string): Promise<boolean> {
  const pool = await tx.pool.findUnique({ where: { id: poolId }, select: { status: true } });
  return pool?.status === 'active';
}
