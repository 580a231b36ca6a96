import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';

/** A pool is active until it is deleted. */
export const POOL_STATES = ['active', 'deleted'] as const;

/** Whether a pool is active: servers inside a suspended or released pool cannot start. */
export async function isPoolActive(tx: Tx, poolId: string): Promise<boolean> {
  const pool = await tx.pool.findUnique({ where: { id: poolId }, select: { status: true } });
  return pool?.status === 'active';
}

/** Of these pool ids, the active ones (one statement, for every server a query reaches). */
export async function activePoolIds(db: TenantDb, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.pool.findMany({ where: { id: { in: [...ids] }, status: 'active' }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}
