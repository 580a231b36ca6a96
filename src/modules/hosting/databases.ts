import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { activeHosting, getHosting, planOf, type HostingContext } from './service.ts';
import { panelChanged } from './panel-events.ts';

/** Extra MySQL databases: named `<username>_<suffix>`; the suffix is 1–16 lowercase letters, digits or underscores. */

const view = (row: { name: string; createdAt: Date }, username: string) => ({
  name: row.name,
  suffix: row.name.slice(username.length + 1),
  user: row.name,
  host: 'localhost',
  createdAt: row.createdAt,
});

export async function listDatabases(ctx: HostingContext, hostingId: string) {
  const hosting = await getHosting(ctx.db, hostingId);
  const rows = await ctx.db.hostingDatabase.findMany({ where: { hostingId }, orderBy: { name: 'asc' } });
  return rows.map((r) => view(r, hosting.username));
}

export async function createDatabase(ctx: HostingContext, hostingId: string, suffix: string) {
  const hosting = await activeHosting(ctx.db, hostingId);
  const plan = await planOf(ctx.db, hosting);
  const name = `${hosting.username}_${suffix}`;
  if ((await ctx.db.hostingDatabase.count({ where: { hostingId } })) >= plan.databases) {
    throw badRequest(`This plan allows ${plan.databases} extra databases; delete one first.`, 'suffix');
  }
  if (await ctx.db.hostingDatabase.findFirst({ where: { hostingId, name } }))
    throw badRequest(`The database ${name} already exists.`, 'suffix');
  const now = ctx.app.clock.now();
  try {
    const row = await ctx.db.$transaction(async (tx) => {
      const created = await tx.hostingDatabase.create({
        data: {
          id: newId(ID_PREFIX.hostingDatabase, now.getTime()),
          accountId: hosting.accountId,
          hostingId,
          name,
          createdAt: now,
        },
      });
      await panelChanged(tx, hosting, 'databases', 'created', now);
      return created;
    });
    await ctx.app.hosting.createDatabase(hostingId, name, now);
    return view(row, hosting.username);
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(`The database ${name} already exists.`, 'suffix');
    throw err;
  }
}

export async function deleteDatabase(ctx: HostingContext, hostingId: string, name: string) {
  const hosting = await activeHosting(ctx.db, hostingId);
  const row = await ctx.db.hostingDatabase.findFirst({ where: { hostingId, name } });
  if (!row) throw notFound('Database');
  await ctx.db.$transaction(async (tx) => {
    await tx.hostingDatabase.delete({ where: { id: row.id } });
    await panelChanged(tx, hosting, 'databases', 'deleted', ctx.app.clock.now());
  });
  await ctx.app.hosting.dropDatabase(hostingId, name);
  return { name, deleted: true };
}
