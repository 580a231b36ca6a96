import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';
import { ID_PREFIX } from '../../db/ids.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { badRequest, notFound } from '../../errors.ts';
import { announceCredentialChange, changingCredential, type PrincipalCache } from '../auth/principal-cache.ts';

/**
 * The account's signed-in dashboard sessions as its holder sees and ends them (the account's
 * settings operations). A session's secret and its hash never leave this module.
 */

export interface SessionView {
  id: string;
  /** The session making the request. */
  current: boolean;
  /** `password`, or `link` for a session opened from a server's sign-in link. */
  signedInWith: 'password' | 'link';
  /** "Chrome 131 on Linux": the browser and system its User-Agent names; null when it sent none. */
  browser: string | null;
  clientAddress: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg\/(\d+)/, 'Edge'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/(?:Headless)?Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/curl\/(\d+)/, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** A User-Agent header in a few words ("Firefox 133 on Windows"); the header itself when nothing in it is known. */
function browserSummary(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const browser = BROWSERS.map(([re, name]) => [re.exec(userAgent), name] as const).find(([m]) => m);
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (!browser && !system) return userAgent.slice(0, 80);
  const what = browser ? `${browser[1]} ${browser[0]![1]}` : 'A browser';
  return system ? `${what} on ${system}` : what;
}

type SessionRow = {
  id: string;
  passwordAt: Date | null;
  userAgent: string | null;
  clientAddress: string | null;
  createdAt: Date;
  lastSeenAt: Date | null;
  expiresAt: Date;
};

function view(row: SessionRow, currentId: string | null): SessionView {
  return {
    id: row.id,
    current: row.id === currentId,
    signedInWith: row.passwordAt ? 'password' : 'link',
    browser: browserSummary(row.userAgent),
    clientAddress: row.clientAddress,
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt ?? row.createdAt,
    expiresAt: row.expiresAt,
  };
}

const VIEW_SELECT = {
  id: true,
  passwordAt: true,
  userAgent: true,
  clientAddress: true,
  createdAt: true,
  lastSeenAt: true,
  expiresAt: true,
} as const;

/** The account's live sessions, newest first; `currentId` is the caller's own. */
export async function listAccountSessions(db: TenantDb, currentId: string | null, args: PageArgs, now: Date) {
  const page = await paginate(args, ID_PREFIX.dashboardSession, (q) =>
    db.dashboardSession.findMany({ ...q, where: { ...q.where, expiresAt: { gt: now } }, select: VIEW_SELECT }),
  );
  return { ...page, data: page.data.map((row) => view(row, currentId)) };
}

/** Forgets each credential on every instance around one commit (principal-cache.ts), for several at once. */
function changingAll<T>(principals: PrincipalCache | undefined, ids: string[], commit: () => Promise<T>): Promise<T> {
  return ids.reduce<() => Promise<T>>((inner, id) => () => changingCredential(principals, id, inner), commit)();
}

/**
 * Ends sessions of the account, on every instance before it answers: `only` one (404 when it is
 * not a live session of the account; 400 for the caller's own, which signs out instead), or every
 * one `allBut` the caller's. `alongside` runs in the same transaction (a password change).
 * Returns how many ended.
 */
export async function endAccountSessions(
  app: { prisma: PrismaClient; principals?: PrincipalCache },
  accountId: string,
  which: { only: string; currentId: string } | { allBut: string },
  now: Date,
  alongside?: (tx: Tx) => Promise<void>,
): Promise<number> {
  const { prisma, principals } = app;
  if ('only' in which && which.only === which.currentId)
    throw badRequest('This is the session you are using: sign out instead.', 'id');
  const live = await prisma.dashboardSession.findMany({
    where: {
      accountId,
      expiresAt: { gt: now },
      ...('only' in which ? { id: which.only } : { id: { not: which.allBut } }),
    },
    select: { id: true },
  });
  if ('only' in which && live.length === 0) throw notFound('Session');
  const ids = live.map((s) => s.id);
  return changingAll(principals, ids, () =>
    prisma.$transaction(async (tx) => {
      await alongside?.(tx);
      const { count } = await tx.dashboardSession.deleteMany({ where: { accountId, id: { in: ids } } });
      for (const id of ids) await announceCredentialChange(tx, id);
      return count;
    }),
  );
}
