import { isIP } from 'node:net';
import type { HostingAccount, PrismaClient } from '../../generated/prisma/client.ts';
import { accountPage } from '../../db/account-page.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation, type Tx } from '../../db/tx.ts';
import { ApiError, badRequest, notFound, refusal } from '../../errors.ts';
import { announceChange } from '../../events/live-changes.ts';
import { recordEvent } from '../../events/outbox.ts';
import { PathRefused } from '../../provider/hosting/sandbox.ts';
import {
  HostingRefusal,
  type HostingCallbacks,
  type HostingDriver,
  type SiteQuota,
} from '../../provider/hosting/types.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { simulatedDnsTxt } from '../../provider/dns.ts';
import { parseDnsName } from '../domains/names.ts';

/** What a hosting service call needs: the tenant-scoped db plus the instance's parts. */
export interface HostingContext {
  db: TenantDb;
  principal: { accountId: string } | null;
  app: {
    prisma: PrismaClient;
    hosting: HostingDriver;
    clock: { now(): Date };
    config: { publicBaseUrl: string; hostingUploadLimitBytes: number; hostingAllowLocalGit: boolean };
    webhookSecretKey: Buffer;
  };
}

export type HostingRow = NonNullable<Awaited<ReturnType<TenantDb['hostingAccount']['findFirst']>>>;

/** Certificates the simulated CA issues are valid this long. */
export const CERT_VALIDITY_DAYS = 90;

export interface HostingPlan {
  id: string;
  name: string;
  monthlyUsdCents: number;
  diskQuotaMb: number;
  inodeQuota: number;
  bandwidthQuotaGb: number;
  databases: number;
  mailboxes: number;
  backupsKept: number;
  phpVersions: string[];
  defaultPhpVersion: string;
}

const DEFAULT_HOSTING_PLAN = 'hosting-starter';

async function getHostingPlan(db: Pick<Tx, 'product'>, productId: string): Promise<HostingPlan | null> {
  const p = await db.product.findFirst({ where: { id: productId, kind: 'hosting_plan' } });
  return p
    ? ({ id: p.id, name: p.name, monthlyUsdCents: p.monthlyUsdCents, ...(p.details as object) } as HostingPlan)
    : null;
}

export const HOSTING_STATES = ['provisioning', 'active'] as const;
export const CERT_STATES = ['issued', 'pending', 'failed'] as const;
export const CUSTOM_DOMAIN_STATES = ['pending', 'attached'] as const;

// The refusals of the hosting services, declared on every operation that can meet them (`refuses`).
export const HOSTING_PROVISIONING = refusal(
  409,
  'The hosting account is still provisioning: its site can be changed once its status is active',
);
export const HOSTING_PLAN_RETIRED = refusal(409, 'The plan of the hosting account is no longer in the catalogue');
const HOSTING_QUOTA_EXCEEDED = refusal(
  409,
  "The change would take the site over its plan's disk or inode quota (code QUOTA_EXCEEDED): delete files or change plan first",
  'QUOTA_EXCEEDED',
);
export const HOSTING_FILE_TOO_LARGE = refusal(413, 'The file is larger than the upload limit');
/** What every operation that changes the site's files can meet (the rules of siteQuota and the driver). */
export const SITE_WRITE_REFUSALS = [HOSTING_PROVISIONING, HOSTING_PLAN_RETIRED, HOSTING_QUOTA_EXCEEDED];

async function planOf(db: Pick<Tx, 'product'>, row: { productId: string }): Promise<HostingPlan> {
  const plan = await getHostingPlan(db, row.productId);
  if (!plan) throw HOSTING_PLAN_RETIRED.error('The plan of this hosting account is no longer in the catalogue.');
  return plan;
}
export { planOf };

/** The plan's disk and inode quotas of an account, enforced by the driver on every change that adds to the site. */
export async function siteQuota(db: Pick<Tx, 'product'>, row: { productId: string }): Promise<SiteQuota> {
  const plan = await planOf(db, row);
  return { diskBytes: plan.diskQuotaMb * 1024 * 1024, inodes: plan.inodeQuota };
}

// ------------------------------------------------------------------ errors from the driver

/** Turns the driver's refusals into the API's errors: 404 for what does not exist, 413 for a too large upload, 409 QUOTA_EXCEEDED over the plan's quota, else 400 naming the field. */
export async function driver<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw asApiError(err);
  }
}

export function asApiError(err: unknown): unknown {
  if (err instanceof PathRefused) return badRequest(err.message, err.field);
  if (err instanceof HostingRefusal) {
    if (err.reason === 'not_found') return new ApiError(404, err.message, { field: err.field });
    // 409: the request is fine but the account's state (full) refuses it until files are deleted or the plan grows.
    if (err.reason === 'quota') return HOSTING_QUOTA_EXCEEDED.error(err.message);
    return err.reason === 'too_large' ? HOSTING_FILE_TOO_LARGE.error(err.message) : badRequest(err.message, err.field);
  }
  return err;
}

// ------------------------------------------------------------------ lookups

export async function getHosting(db: TenantDb | Tx, id: string): Promise<HostingRow> {
  const row = await db.hostingAccount.findFirst({ where: { id } });
  if (!row) throw notFound('Hosting account');
  return row;
}

/** The account must have finished provisioning before its site can be changed. */
export async function activeHosting(db: TenantDb | Tx, id: string): Promise<HostingRow> {
  const row = await getHosting(db, id);
  if (row.status === 'provisioning')
    throw HOSTING_PROVISIONING.error('The hosting account is still provisioning; retry once its status is active.');
  return row;
}

// ------------------------------------------------------------------ views

/** The hostname customers CNAME their custom domain to: `<username>.hosting.<public host>`. */
export function serviceHostname(publicBaseUrl: string, username: string): string {
  const host = new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  return `${username}.hosting.${isIP(host) || host === 'localhost' ? 'localhost' : host}`;
}

export interface HostingView {
  id: string;
  domain: string;
  status: string;
  productId: string;
  phpVersion: string;
  ip: string;
  customDomain: {
    domain: string;
    status: string;
    attachedAt: Date | null;
    target: { a: string; cname: string };
  } | null;
  certificate: {
    status: string;
    domains: string[];
    issuedAt: Date | null;
    expiresAt: Date | null;
    error: string | null;
  };
  connection: {
    host: string;
    ip: string;
    sftpPort: number;
    username: string;
    homeDirectory: string;
    webRoot: string;
    mysqlHost: string;
    mysqlPort: number;
    databasePrefix: string;
  };
  createdAt: Date;
  provisionedAt: Date | null;
}

/** Customer view of a hosting account: no node, no upstream log, no on-disk location. */
export function hostingView(row: HostingRow, publicBaseUrl: string): HostingView {
  const host = serviceHostname(publicBaseUrl, row.username);
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    productId: row.productId,
    phpVersion: row.phpVersion,
    ip: row.ip,
    customDomain: row.customDomain
      ? {
          domain: row.customDomain,
          status: row.customDomainStatus ?? 'pending',
          attachedAt: row.customDomainAttachedAt,
          target: { a: row.ip, cname: host },
        }
      : null,
    certificate: certificateView(row),
    connection: {
      host,
      ip: row.ip,
      sftpPort: 22,
      username: row.username,
      homeDirectory: '/',
      webRoot: '/public_html',
      mysqlHost: 'localhost',
      mysqlPort: 3306,
      databasePrefix: `${row.username}_`,
    },
    createdAt: row.createdAt,
    provisionedAt: row.provisionedAt,
  };
}

export function certificateView(row: HostingRow) {
  return {
    status: row.certStatus,
    domains: row.certDomains,
    issuedAt: row.certIssuedAt,
    expiresAt: row.certExpiresAt,
    error: row.certError,
  };
}

/** The account's hosting accounts, newest first, as one statement (db/account-page.ts). */
export const hostingPage = accountPage<HostingAccount>('HostingAccount');

export async function listHosting(ctx: HostingContext, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.hosting, (q) => hostingPage(ctx.db, q));
  return { ...page, data: page.data.map((r) => hostingView(r, ctx.app.config.publicBaseUrl)) };
}

export async function hostingByIds(ctx: HostingContext, ids: readonly string[]) {
  return (await ctx.db.hostingAccount.findMany({ where: { id: { in: [...ids] } } })).map((r) =>
    hostingView(r, ctx.app.config.publicBaseUrl),
  );
}

export async function hostingDetail(ctx: HostingContext, id: string): Promise<HostingView> {
  return hostingView(await getHosting(ctx.db, id), ctx.app.config.publicBaseUrl);
}

// ------------------------------------------------------------------ operator: order, DNS

/** Whether a domain is already used by any hosting account (primary or custom), other than `except`. */
async function domainTaken(prisma: PrismaClient, domain: string, except: string): Promise<boolean> {
  const row = await prisma.hostingAccount.findFirst({
    where: { OR: [{ domain }, { customDomain: domain }], NOT: { id: except } },
    select: { id: true },
  });
  return row !== null;
}

/** An order from the operator API: the row now, the site later (`hosting.created` when provisioning completes). */
export async function orderHosting(
  prisma: PrismaClient,
  hosting: HostingDriver,
  accountId: string,
  body: { domain?: unknown; productId?: unknown },
  now: Date,
) {
  const domain = parseDnsName(body.domain, 'domain');
  if (body.productId !== undefined && typeof body.productId !== 'string')
    throw badRequest('productId must be a string.', 'productId');
  const plan = await getHostingPlan(prisma, (body.productId as string | undefined) ?? DEFAULT_HOSTING_PLAN);
  if (!plan)
    throw badRequest(`productId "${String(body.productId)}" is not a hosting plan in the catalogue.`, 'productId');
  if (await domainTaken(prisma, domain, ''))
    throw badRequest(`domain ${domain} is already used by another hosting account.`, 'domain');
  const id = newId(ID_PREFIX.hosting, now.getTime());
  // System user: "u" + the id's random tail, so it is unique and a valid Unix/MySQL name.
  const username = `u${id.slice(-10)}`;
  try {
    return await prisma.$transaction(async (tx) => {
      await tx.hostingAccount.create({
        data: {
          id,
          accountId,
          productId: plan.id,
          domain,
          status: 'provisioning',
          username,
          ip: '',
          phpVersion: plan.defaultPhpVersion,
          certDomains: [domain],
          createdAt: now,
        },
      });
      // The upstream picks the web node, and so the address the site answers on.
      const { ip } = await hosting.provision(tx, { hostingId: id, domain, username, productId: plan.id }, now);
      // `hosting.created` fires when it is active; until then only open pages hear of it.
      await announceChange(tx, accountId, 'hosting.status.changed', { hostingId: id, status: 'provisioning' }, now);
      return tx.hostingAccount.update({ where: { id }, data: { ip } });
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw badRequest(`domain ${domain} is already used by another hosting account.`, 'domain');
    throw err;
  }
}

/** Most TXT values one simulated name holds, and the longest (one DNS character-string). */
const MAX_TXT_VALUES = 20;
const MAX_TXT_LENGTH = 255;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Operator: the simulated DNS of a hostname. `target` is what it points to (an IPv4 address or a
 * hostname; null removes it), `txt` its TXT values (null or [] removes them); at least one.
 * Without either (DELETE) both are removed.
 */
export async function setSimulatedDns(
  prisma: PrismaClient,
  hosting: HostingDriver,
  hostnameInput: string,
  target: unknown,
  txt?: unknown,
) {
  const hostname = parseDnsName(hostnameInput, 'hostname');
  if (target === undefined && txt === undefined)
    throw badRequest(
      'target or txt is required: target an IPv4 address or a hostname, txt a list of TXT values (null removes either).',
      'target',
    );
  let value: string | null = null;
  if (target !== undefined && target !== null) {
    if (typeof target !== 'string' || !target.trim())
      throw badRequest('target must be an IPv4 address or a hostname (null removes the record).', 'target');
    value = isIP(target.trim()) === 4 ? target.trim() : parseDnsName(target, 'target');
  }
  if (
    txt !== undefined &&
    txt !== null &&
    (!Array.isArray(txt) ||
      txt.length > MAX_TXT_VALUES ||
      txt.some((t) => typeof t !== 'string' || !t || t.length > MAX_TXT_LENGTH || CONTROL.test(t)))
  ) {
    throw badRequest(
      `txt must be a list of at most ${MAX_TXT_VALUES} values of 1 to ${MAX_TXT_LENGTH} printable characters (null removes them).`,
      'txt',
    );
  }
  if (target !== undefined) await hosting.setDns(prisma, hostname, value);
  if (txt !== undefined) await simulatedDnsTxt.setTxt(prisma, hostname, txt as string[] | null);
  return {
    hostname,
    ...(target !== undefined ? { target: value } : {}),
    ...(txt !== undefined ? { txt: (txt as string[] | null) ?? [] } : {}),
  };
}

/** Provider callbacks: the site exists on disk; the account is active and `hosting.created` fires. */
export const hostingCallbacks: HostingCallbacks = {
  async hostingProvisioned(tx, hostingId, now) {
    const row = await tx.hostingAccount.findUnique({ where: { id: hostingId } });
    if (row?.status !== 'provisioning') return;
    const updated = await tx.hostingAccount.update({
      where: { id: hostingId },
      data: {
        status: 'active',
        provisionedAt: now,
        certStatus: 'issued',
        certDomains: [row.domain],
        certIssuedAt: now,
        certExpiresAt: new Date(now.getTime() + CERT_VALIDITY_DAYS * 86_400_000),
      },
    });
    await recordEvent(
      tx,
      row.accountId,
      'hosting.created',
      { hostingId, domain: updated.domain, status: updated.status },
      now,
    );
  },
};
