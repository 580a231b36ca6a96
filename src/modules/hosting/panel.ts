import { createHash, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { CronExpressionParser } from 'cron-parser';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, notFound, refusal } from '../../errors.ts';
import { pathSegments, type PathRefused } from '../../provider/hosting/sandbox.ts';
import { z } from 'zod';
import { activeHosting, driver, getHosting, planOf, type HostingContext, type HostingRow } from './service.ts';
import { panelChanged } from './panel-events.ts';

// ------------------------------------------------------------------ PHP

export async function setPhpVersion(ctx: HostingContext, id: string, version: unknown) {
  const row = await activeHosting(ctx.db, id);
  const plan = await planOf(ctx.db, row);
  if (typeof version !== 'string' || !plan.phpVersions.includes(version)) {
    throw badRequest(
      `php_version must be one of ${plan.phpVersions.join(', ')} on the ${plan.name} plan.`,
      'php_version',
    );
  }
  if (row.phpVersion === version) return { id, phpVersion: version, availableVersions: plan.phpVersions };
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'php', 'set', ctx.app.clock.now());
    return tx.hostingAccount.update({ where: { id }, data: { phpVersion: version } });
  });
  return { id, phpVersion: updated.phpVersion, availableVersions: plan.phpVersions };
}

// ------------------------------------------------------------------ logs

export const LOG_LINES_DEFAULT = 100;
export const LOG_LINES_MAX = 1000;

export async function tailLog(ctx: HostingContext, id: string, kind: 'access' | 'error', lines?: number | null) {
  const n = lines ?? LOG_LINES_DEFAULT;
  await activeHosting(ctx.db, id);
  const out = await driver(ctx.app.hosting.tailLog(id, kind, n, ctx.app.clock.now()));
  return { kind, lines: out };
}

// ------------------------------------------------------------------ stats

/** Deterministic simulated traffic: a number in [0, 1) per key. */
function unit(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0) / 2 ** 32;
}

/** Bytes the simulated site served between two instants (about 2 requests a minute of 20–60 KB). */
function servedBytes(id: string, from: number, to: number): number {
  let total = 0;
  const hour = 3_600_000;
  for (let h = Math.floor(from / hour) * hour; h < to; h += hour) {
    const slice = Math.max(0, Math.min(to, h + hour) - Math.max(from, h)) / hour;
    total += slice * 120 * (20_000 + unit(id, 'bw', h) * 40_000);
  }
  return Math.round(total);
}

export async function hostingStats(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  const plan = await planOf(ctx.db, row);
  const now = ctx.app.clock.now();
  const usage = await driver(ctx.app.hosting.usage(id));
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const since = Math.max(monthStart, (row.provisionedAt ?? now).getTime());
  return {
    id,
    sampledAt: now,
    disk: { usedBytes: usage.diskBytes, quotaBytes: plan.diskQuotaMb * 1024 * 1024 },
    inodes: { used: usage.inodes, quota: plan.inodeQuota },
    bandwidth: {
      usedBytes: servedBytes(id, since, now.getTime()),
      quotaBytes: plan.bandwidthQuotaGb * 1024 ** 3,
      periodStart: new Date(monthStart),
    },
    // Mailboxes on the account's domains: the mail module counts them once it exists; none yet.
    mailboxes: { used: 0, quota: plan.mailboxes },
    databases: { used: await ctx.db.hostingDatabase.count({ where: { hostingId: id } }), quota: plan.databases },
  };
}

const PERIODS = {
  '24h': { hours: 24, bucketHours: 1 },
  '7d': { hours: 168, bucketHours: 24 },
  '30d': { hours: 720, bucketHours: 24 },
} as const;

export async function visitorStats(ctx: HostingContext, id: string, period: string) {
  const row = await activeHosting(ctx.db, id);
  const { hours, bucketHours } = PERIODS[period as keyof typeof PERIODS];
  const now = ctx.app.clock.now().getTime();
  const hour = 3_600_000;
  const to = Math.floor(now / hour) * hour + hour;
  const from = to - hours * hour;
  const live = (row.provisionedAt ?? new Date(now)).getTime();
  const series: { start: Date; visits: number; uniqueVisitors: number; pageViews: number }[] = [];
  const pages = new Map<string, number>();
  let bandwidth = 0;
  for (let b = from; b < to; b += bucketHours * hour) {
    let visits = 0;
    let pageViews = 0;
    for (let h = b; h < b + bucketHours * hour; h += hour) {
      if (h + hour <= live || h > now) continue;
      const views = Math.round(60 + unit(id, 'pv', h) * 120);
      pageViews += views;
      visits += Math.round(views * (0.35 + unit(id, 'v', h) * 0.2));
      for (const page of ['/', '/about', '/contact', '/blog'])
        pages.set(page, (pages.get(page) ?? 0) + Math.round(views * (page === '/' ? 0.5 : 0.5 / 3)));
      bandwidth += views * 35_000;
    }
    series.push({ start: new Date(b), visits, uniqueVisitors: Math.round(visits * 0.7), pageViews });
  }
  const sum = (k: 'visits' | 'uniqueVisitors' | 'pageViews') => series.reduce((n, s) => n + s[k], 0);
  return {
    id,
    period,
    from: new Date(from),
    to: new Date(to),
    visits: sum('visits'),
    uniqueVisitors: sum('uniqueVisitors'),
    pageViews: sum('pageViews'),
    bandwidthBytes: bandwidth,
    topPages: [...pages.entries()].sort((a, b) => b[1] - a[1]).map(([path, views]) => ({ path, views })),
    series,
  };
}

// ------------------------------------------------------------------ cron

export const CRON_MAX_JOBS = 50;
export const CRON_COMMAND_MAX = 1000;

/** The declared rules of the panel's arguments (the schema files spread them; checked before a resolver runs). */
export const PANEL_RULES = {
  logKind: z.enum(['access', 'error']),
  logLines: z.number().min(1).max(LOG_LINES_MAX),
  period: z.enum(Object.keys(PERIODS) as [string, ...string[]]),
  cronJobs: z.array(z.unknown()).max(CRON_MAX_JOBS).meta({ itemsNoun: 'jobs' }),
  cronCommand: z.string().trim().min(1).max(CRON_COMMAND_MAX),
  basicUser: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, '1 to 64 letters, digits, dots, hyphens or underscores'),
};
const CRON_MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function crontabHeader(row: HostingRow): string {
  return [
    `# crontab of ${row.username} (${row.domain}), managed by the control panel: PUT /hosting/${row.id}/cron replaces it.`,
    'SHELL=/bin/bash',
    'PATH=/usr/local/bin:/usr/bin:/bin',
    'MAILTO=""',
    'CRON_TZ=UTC',
  ].join('\n');
}

async function cronView(ctx: HostingContext, row: HostingRow) {
  const jobs = await ctx.db.hostingCronJob.findMany({
    where: { hostingId: row.id },
    orderBy: { position: 'asc' },
    select: { schedule: true, command: true },
  });
  return { header: crontabHeader(row), jobs };
}

export async function getCron(ctx: HostingContext, id: string) {
  return cronView(ctx, await activeHosting(ctx.db, id));
}

/** One schedule: five fields or a macro, parsed by cron-parser (which also refuses impossible dates). */
function checkSchedule(schedule: string, field: string): string {
  const s = schedule.trim().replace(/\s+/g, ' ');
  const macro = s.startsWith('@');
  if (macro ? !CRON_MACROS.has(s) : s.split(' ').length !== 5) {
    throw badRequest(
      `${field} "${schedule}" is not a cron schedule: use five fields (minute hour day-of-month month day-of-week) or one of ${[...CRON_MACROS].join(', ')}.`,
      field,
    );
  }
  try {
    CronExpressionParser.parse(s, { tz: 'UTC' });
  } catch (err) {
    throw badRequest(`${field} "${schedule}" is not a valid cron schedule: ${(err as Error).message}.`, field);
  }
  return s;
}

/** Each job's shape (the list length and the command's length) is declared in PANEL_RULES; the schedule and the command's characters are checked here. */
export async function setCron(ctx: HostingContext, id: string, input: { schedule: string; command: string }[]) {
  const jobs = input.map((job, i) => {
    const schedule = checkSchedule(job.schedule, `jobs[${i}].schedule`);
    const command = job.command.trim();
    if (/[\r\n]/.test(job.command))
      throw badRequest(`jobs[${i}].command must be a single line (no newlines).`, `jobs[${i}].command`);
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x08\x0b-\x1f\x7f]/.test(command))
      throw badRequest(`jobs[${i}].command must not contain control characters.`, `jobs[${i}].command`);
    return { schedule, command };
  });
  const row = await activeHosting(ctx.db, id);
  const now = ctx.app.clock.now();
  await ctx.db.$transaction(async (tx) => {
    const before = await tx.hostingCronJob.findMany({ where: { hostingId: id }, orderBy: { position: 'asc' } });
    const same =
      before.length === jobs.length &&
      before.every((b, i) => b.schedule === jobs[i]?.schedule && b.command === jobs[i]?.command);
    if (!same) await panelChanged(tx, row, 'cron', 'set', now);
    await tx.hostingCronJob.deleteMany({ where: { hostingId: id } });
    if (jobs.length) {
      await tx.hostingCronJob.createMany({
        data: jobs.map((j, position) => ({
          id: newId(ID_PREFIX.hostingCronJob, now.getTime()),
          accountId: row.accountId,
          hostingId: id,
          position,
          ...j,
          createdAt: now,
        })),
      });
    }
    // The crontab file is written inside the transaction: if it fails, the rows roll back.
    await ctx.app.hosting.writeCrontab(
      id,
      `${crontabHeader(row)}\n\n${jobs.map((j) => `${j.schedule} ${j.command}`).join('\n')}${jobs.length ? '\n' : ''}`,
    );
  });
  return cronView(ctx, row);
}

// ------------------------------------------------------------------ protected directories

const PASSWORD_MIN = 8;
/** bcrypt reads at most 72 bytes of a password. */
export const PASSWORD_MAX_BYTES = 72;

const protectedView = (r: { path: string; basicUser: string; createdAt: Date; updatedAt: Date }) => ({
  path: r.path,
  basicUser: r.basicUser,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export async function listProtectedDirs(ctx: HostingContext, id: string) {
  await getHosting(ctx.db, id);
  const rows = await ctx.db.hostingProtectedDir.findMany({ where: { hostingId: id }, orderBy: { path: 'asc' } });
  return rows.map(protectedView);
}

/** Adds or updates (same path) a protected directory; the password is stored only as a bcrypt ($2y$) hash in its htpasswd file. */
export async function setProtectedDir(
  ctx: HostingContext,
  id: string,
  input: { path: string; basicUser: string; password: string },
) {
  const password = input.password;
  // Bytes, not characters (bcrypt reads 72 bytes), so this stays here rather than a declared length.
  if (password.length < PASSWORD_MIN || Buffer.byteLength(password) > PASSWORD_MAX_BYTES) {
    throw badRequest(`password must be ${PASSWORD_MIN} to ${PASSWORD_MAX_BYTES} bytes.`, 'password');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(password)) throw badRequest('password must not contain control characters.', 'password');
  const row = await activeHosting(ctx.db, id);
  const dir = await driver(ctx.app.hosting.requireDirectory(id, input.path));
  const hash = (await bcrypt.hash(password, 10)).replace(/^\$2[abx]\$/, '$2y$');
  const now = ctx.app.clock.now();
  await ctx.app.hosting.writeHtpasswd(id, dir, { user: input.basicUser, hash });
  const saved = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'protectedDirs', 'set', now);
    return tx.hostingProtectedDir.upsert({
      where: { hostingId_path: { hostingId: id, path: dir } },
      create: {
        id: newId(ID_PREFIX.hostingProtectedDir, now.getTime()),
        accountId: row.accountId,
        hostingId: id,
        path: dir,
        basicUser: input.basicUser,
        createdAt: now,
        updatedAt: now,
      },
      update: { basicUser: input.basicUser, updatedAt: now },
    });
  });
  return protectedView(saved);
}

export async function removeProtectedDir(ctx: HostingContext, id: string, path: unknown) {
  let rel: string;
  try {
    rel = `/${pathSegments(path).join('/')}`;
  } catch (err) {
    throw badRequest((err as PathRefused).message, 'path');
  }
  const hosting = await activeHosting(ctx.db, id);
  const row = await ctx.db.hostingProtectedDir.findFirst({ where: { hostingId: id, path: rel } });
  if (!row) throw notFound('Protected directory');
  await ctx.db.$transaction(async (tx) => {
    await tx.hostingProtectedDir.delete({ where: { id: row.id } });
    await panelChanged(tx, hosting, 'protectedDirs', 'deleted', ctx.app.clock.now());
  });
  await ctx.app.hosting.writeHtpasswd(id, rel, null);
  return { path: rel, deleted: true };
}

// ------------------------------------------------------------------ web application firewall

/** Temporary WAF-log access lasts this long (simulated clock). */
const WAF_ACCESS_MINUTES = 60;

function wafAccessView(row: HostingRow, now: Date) {
  const active = row.wafAccessUntil !== null && row.wafAccessUntil > now;
  return { active, expiresAt: active ? row.wafAccessUntil : null };
}

export async function wafStatus(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  const now = ctx.app.clock.now();
  const day = Math.floor(now.getTime() / 86_400_000);
  return {
    id,
    enabled: true,
    mode: 'blocking',
    ruleset: 'OWASP CRS 4',
    blockedRequests24h: Math.round(unit(id, 'waf', day) * 40),
    logAccess: wafAccessView(row, now),
  };
}

export async function wafAccess(ctx: HostingContext, id: string) {
  return wafAccessView(await activeHosting(ctx.db, id), ctx.app.clock.now());
}

export async function requestWafAccess(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  const now = ctx.app.clock.now();
  // The window hands out no credential (the logs are read with the panel's own access), so it is told.
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'waf', 'enabled', now);
    return tx.hostingAccount.update({
      where: { id },
      data: { wafAccessUntil: new Date(now.getTime() + WAF_ACCESS_MINUTES * 60_000) },
    });
  });
  return wafAccessView(updated, now);
}

// ------------------------------------------------------------------ browser SSH

/** A browser-SSH session (its URL and token) lasts this long on the simulated clock. */
const SSH_SESSION_MINUTES = 15;

async function activeSession(ctx: HostingContext, id: string, now: Date) {
  return ctx.db.hostingSshSession.findFirst({
    where: { hostingId: id, endedAt: null, expiresAt: { gt: now } },
    orderBy: { id: 'desc' },
  });
}

/** The graph's read by id: sessions still live, as the access shows its session (an ended or expired one reads as missing). */
export function liveSshSessionsByIds(ctx: HostingContext, ids: readonly string[]) {
  return ctx.db.hostingSshSession.findMany({
    where: { id: { in: [...ids] }, endedAt: null, expiresAt: { gt: ctx.app.clock.now() } },
    select: { id: true, expiresAt: true },
  });
}

async function sshView(ctx: HostingContext, row: HostingRow) {
  const now = ctx.app.clock.now();
  const s = await activeSession(ctx, row.id, now);
  return {
    enabled: row.sshAccessEnabled,
    enabledAt: row.sshAccessEnabledAt,
    session: s ? { id: s.id, expiresAt: s.expiresAt } : null,
  };
}

export async function sshAccess(ctx: HostingContext, id: string) {
  return sshView(ctx, await activeHosting(ctx.db, id));
}

export async function enableSshAccess(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  if (row.sshAccessEnabled) return sshView(ctx, row);
  const now = ctx.app.clock.now();
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'ssh', 'enabled', now);
    return tx.hostingAccount.update({ where: { id }, data: { sshAccessEnabled: true, sshAccessEnabledAt: now } });
  });
  return sshView(ctx, updated);
}

export const SSH_ACCESS_OFF = refusal(409, 'Browser-SSH access is not enabled: enable it first');

/** Starts a session (ending any other): a single-use token, shown once, stored only as its SHA-256. */
export async function launchSsh(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  if (!row.sshAccessEnabled)
    throw SSH_ACCESS_OFF.error(
      `Browser-SSH access is not enabled; enable it first with POST /hosting/${id}/ssh-terminal/access.`,
    );
  const now = ctx.app.clock.now();
  const token = `sshs_${randomBytes(24).toString('base64url')}`;
  const sessionId = newId(ID_PREFIX.hostingSshSession, now.getTime());
  const expiresAt = new Date(now.getTime() + SSH_SESSION_MINUTES * 60_000);
  await ctx.db.$transaction(async (tx) => {
    await tx.hostingSshSession.updateMany({ where: { hostingId: id, endedAt: null }, data: { endedAt: now } });
    await tx.hostingSshSession.create({
      data: {
        id: sessionId,
        accountId: row.accountId,
        hostingId: id,
        tokenHash: createHash('sha256').update(token).digest('hex'),
        expiresAt,
        createdAt: now,
      },
    });
  });
  return {
    sessionId,
    url: `${ctx.app.config.publicBaseUrl}/ssh-terminal/${sessionId}#token=${token}`,
    token,
    expiresAt,
  };
}

export async function stopSsh(ctx: HostingContext, id: string) {
  await activeHosting(ctx.db, id);
  const now = ctx.app.clock.now();
  const s = await activeSession(ctx, id, now);
  await ctx.db.hostingSshSession.updateMany({ where: { hostingId: id, endedAt: null }, data: { endedAt: now } });
  return { stopped: s !== null, sessionId: s?.id ?? null };
}
