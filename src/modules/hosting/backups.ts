import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, notFound } from '../../errors.ts';
import { activeHosting, driver, getHosting, planOf, siteQuota, type HostingContext } from './service.ts';
import { panelChanged } from './panel-events.ts';

/**
 * Backups: a gzip tarball of the account's home and its databases' dumps, made at once
 * (status `available`). Restore puts the site and the databases back as they were in it.
 */
/** A backup is available as soon as it is made. */
export const BACKUP_STATES = ['available'] as const;

const BACKUP_SELECT = {
  id: true,
  hostingId: true,
  status: true,
  sizeBytes: true,
  sha256: true,
  databases: true,
  createdAt: true,
} as const;

export async function listBackups(ctx: HostingContext, hostingId: string) {
  await getHosting(ctx.db, hostingId);
  return ctx.db.hostingBackup.findMany({ where: { hostingId }, orderBy: { id: 'desc' }, select: BACKUP_SELECT });
}

/** The graph's read by id, shaped as the list shows them. */
export function backupsByIds(ctx: HostingContext, ids: readonly string[]) {
  return ctx.db.hostingBackup.findMany({ where: { id: { in: [...ids] } }, select: BACKUP_SELECT });
}

async function findBackup(ctx: HostingContext, hostingId: string, backupId: string) {
  const row = await ctx.db.hostingBackup.findFirst({ where: { id: backupId, hostingId }, select: BACKUP_SELECT });
  if (!row) throw notFound('Backup');
  return row;
}

export async function createBackup(ctx: HostingContext, hostingId: string) {
  const hosting = await activeHosting(ctx.db, hostingId);
  const plan = await planOf(ctx.db, hosting);
  if ((await ctx.db.hostingBackup.count({ where: { hostingId } })) >= plan.backupsKept) {
    throw badRequest(`This plan keeps at most ${plan.backupsKept} backups; delete one first.`);
  }
  const now = ctx.app.clock.now();
  const id = newId(ID_PREFIX.hostingBackup, now.getTime());
  const made = await driver(ctx.app.hosting.createBackup(hostingId, id, await siteQuota(ctx.db, hosting)));
  try {
    return await ctx.db.$transaction(async (tx) => {
      await panelChanged(tx, hosting, 'backups', 'created', now);
      return tx.hostingBackup.create({
        data: {
          id,
          accountId: hosting.accountId,
          hostingId,
          status: 'available',
          sizeBytes: made.sizeBytes,
          sha256: made.sha256,
          databases: made.databases,
          createdAt: now,
        },
        select: BACKUP_SELECT,
      });
    });
  } catch (err) {
    await ctx.app.hosting.deleteBackup(hostingId, id);
    throw err;
  }
}

export async function deleteBackup(ctx: HostingContext, hostingId: string, backupId: string) {
  const hosting = await getHosting(ctx.db, hostingId);
  await findBackup(ctx, hostingId, backupId);
  await ctx.db.$transaction(async (tx) => {
    await tx.hostingBackup.delete({ where: { id: backupId } });
    await panelChanged(tx, hosting, 'backups', 'deleted', ctx.app.clock.now());
  });
  await ctx.app.hosting.deleteBackup(hostingId, backupId);
  return { id: backupId, deleted: true };
}

/** Restores files and databases; the database list follows the backup (databases made since are dropped). */
export async function restoreBackup(ctx: HostingContext, hostingId: string, backupId: string) {
  const hosting = await activeHosting(ctx.db, hostingId);
  const backup = await findBackup(ctx, hostingId, backupId);
  const now = ctx.app.clock.now();
  const { databases } = await driver(
    ctx.app.hosting.restoreBackup(hostingId, backupId, await siteQuota(ctx.db, hosting)),
  );
  await ctx.db.$transaction(async (tx) => {
    await tx.hostingDatabase.deleteMany({ where: { hostingId, name: { notIn: databases } } });
    const existing = new Set(
      (await tx.hostingDatabase.findMany({ where: { hostingId }, select: { name: true } })).map((d) => d.name),
    );
    const missing = databases.filter((name) => !existing.has(name) && name.startsWith(`${hosting.username}_`));
    if (missing.length) {
      await tx.hostingDatabase.createMany({
        data: missing.map((name) => ({
          id: newId(ID_PREFIX.hostingDatabase, now.getTime()),
          accountId: hosting.accountId,
          hostingId,
          name,
          createdAt: now,
        })),
      });
    }
    await panelChanged(tx, hosting, 'backups', 'restored', now);
  });
  return { id: backup.id, hostingId, restoredAt: now, databases };
}

export async function openBackup(ctx: HostingContext, hostingId: string, backupId: string) {
  const hosting = await getHosting(ctx.db, hostingId);
  await findBackup(ctx, hostingId, backupId);
  const download = await driver(ctx.app.hosting.openBackup(hostingId, backupId));
  return { ...download, name: `${hosting.domain}-${backupId}.tar.gz` };
}
