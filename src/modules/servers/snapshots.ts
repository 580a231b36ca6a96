import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { notFound, refusal } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { requireAction } from './actions.ts';
import { getServer, lockServer, resting, type ServiceContext } from './server-row.ts';

export const SNAPSHOT_STATES = ['creating', 'available'] as const;
export const SNAPSHOT_NOT_AVAILABLE = refusal(409, 'The snapshot is still being created');

// Server snapshots: list, take (at most SNAPSHOTS_PER_SERVER: actions.ts), delete, revert.

export async function listSnapshots(db: TenantDb, serverId: string, query: object = {}) {
  await getServer(db, serverId);
  return db.snapshot.findMany({ ...query, where: { serverId }, orderBy: { id: 'desc' } });
}

export async function createSnapshot(
  ctx: ServiceContext,
  serverId: string,
  input: { name: string; description?: string | null },
  query: object = {},
) {
  const name = input.name.trim();
  const description = input.description ?? '';
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, serverId);
    requireAction('snapshot', server, { snapshotCount: await tx.snapshot.count({ where: { serverId } }) });
    const id = newId(ID_PREFIX.snapshot, now.getTime());
    const { sizeGb } = await ctx.app.provider.snapshot(tx, serverId, id, now);
    await recordEvent(tx, server.accountId, 'server.snapshot.created', { serverId, snapshotId: id, name }, now);
    return tx.snapshot.create({
      ...query,
      data: {
        id,
        accountId: server.accountId,
        serverId,
        name,
        description,
        status: 'available',
        sizeGb,
        createdAt: now,
      },
    });
  });
}

export async function deleteSnapshot(ctx: ServiceContext, serverId: string, snapshotId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, serverId);
    const snap = await tx.snapshot.findFirst({ where: { id: snapshotId, serverId } });
    if (!snap) throw notFound('Snapshot');
    await ctx.app.provider.deleteSnapshot(tx, serverId, snapshotId, now);
    await tx.snapshot.delete({ where: { id: snapshotId } });
    await recordEvent(tx, server.accountId, 'server.snapshot.deleted', { serverId, snapshotId, name: snap.name }, now);
    return { id: snapshotId, deleted: true };
  });
}

/** Rolls the live disk back: the server is `restoring` for about a minute, then back in the state it had. */
export async function revertSnapshot(ctx: ServiceContext, serverId: string, snapshotId: string, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    const snap = await tx.snapshot.findFirst({ where: { id: snapshotId, serverId } });
    if (!snap) throw notFound('Snapshot');
    requireAction('revert', server);
    if (snap.status !== 'available') throw SNAPSHOT_NOT_AVAILABLE.error('The snapshot is not available yet.');
    await ctx.app.provider.revertSnapshot(tx, serverId, snapshotId, resting(server.status), now);
    await tx.server.update({ where: { id: serverId }, data: { status: 'restoring' } });
    // Recorded when the revert is accepted; the server's status says when it is done.
    await recordEvent(tx, server.accountId, 'server.snapshot.reverted', { serverId, snapshotId, name: snap.name }, now);
    return getServer(tx, serverId, query);
  });
}
