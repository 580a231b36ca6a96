import bcrypt from 'bcryptjs';
import { randomPassword } from '../../core/passwords.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { activeHosting, getHosting, planOf, type HostingContext } from './service.ts';
import { panelChanged } from './panel-events.ts';

/** Extra MySQL databases: named `<username>_<suffix>`; the suffix is 1–16 lowercase letters, digits or underscores. */

/** bcrypt's cost for a database user's password, as for the other passwords the datacenter keeps a hash of. */
const DATABASE_PASSWORD_COST = 10;

const view = (row: { name: string; createdAt: Date; passwordSetAt: Date | null }, username: string) => ({
  name: row.name,
  suffix: row.name.slice(username.length + 1),
  user: row.name,
  host: 'localhost',
  createdAt: row.createdAt,
  passwordSetAt: row.passwordSetAt,
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

/**
 * Sets a new random password for the database's MySQL user and returns it once: the driver gets
 * only its bcrypt hash (the MySQL user table), and the app keeps only when it was set. The
 * earlier password stops working.
 */
export async function resetDatabasePassword(ctx: HostingContext, hostingId: string, name: string) {
  const hosting = await activeHosting(ctx.db, hostingId);
  const row = await ctx.db.hostingDatabase.findFirst({ where: { hostingId, name } });
  if (!row) throw notFound('Database');
  const password = randomPassword();
  await ctx.app.hosting.setDatabasePassword(hostingId, name, await bcrypt.hash(password, DATABASE_PASSWORD_COST));
  const now = ctx.app.clock.now();
  const updated = await ctx.db.$transaction(async (tx) => {
    const set = await tx.hostingDatabase.update({ where: { id: row.id }, data: { passwordSetAt: now } });
    await panelChanged(tx, hosting, 'databases', 'password_reset', now);
    return set;
  });
  return { ...view(updated, hosting.username), passwordSetAt: now, password };
}
