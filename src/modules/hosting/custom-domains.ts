import { isIP } from 'node:net';
import { isUniqueViolation } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { requireDomainControl } from '../domains/ownership.ts';
import { normalDnsName } from '../../core/input-schemas.ts';
import {
  activeHosting,
  certificateView,
  CERT_VALIDITY_DAYS,
  hostingView,
  serviceHostname,
  type HostingContext,
  type HostingRow,
  type HostingView,
} from './service.ts';
import { panelChanged } from './panel-events.ts';
import { waitOutside } from '../../core/outside-waits.ts';

// A hosting account's custom domain (set, verified against DNS, detached) and the certificate covering its names.

/**
 * Sets the custom domain; it stays `pending` until verify finds its DNS pointing here. A domain
 * not registered in this account needs its ownership TXT record first (domains/ownership.ts),
 * so a stranger can neither claim it nor hold it: a proven claim drops another hosting
 * account's pending one. A primary domain or an attached custom domain elsewhere still refuses,
 * said only to whoever proved control of the domain.
 */
export async function setCustomDomain(ctx: HostingContext, id: string, input: string): Promise<HostingView> {
  const domain = normalDnsName(input);
  const row = await activeHosting(ctx.db, id);
  if (domain === row.domain) throw badRequest(`domain ${domain} is this account's primary domain already.`, 'domain');
  if (row.customDomain === domain) return hostingView(row, ctx.app.config.publicBaseUrl);
  await requireDomainControl(ctx.app.prisma, row.accountId, domain, 'A custom domain');
  const inUse = () =>
    badRequest(`domain ${domain} is used by another hosting account; remove it there first.`, 'domain');
  try {
    const updated = await ctx.app.prisma.$transaction(async (tx) => {
      const held = await tx.hostingAccount.findFirst({
        where: { OR: [{ domain }, { customDomain: domain }], NOT: { id } },
        select: { domain: true, customDomainStatus: true },
      });
      if (held && (held.domain === domain || held.customDomainStatus === 'attached')) throw inUse();
      await tx.hostingAccount.updateMany({
        where: { customDomain: domain, NOT: { id } },
        data: { customDomain: null, customDomainStatus: null, customDomainAttachedAt: null },
      });
      await panelChanged(tx, row, 'customDomain', 'set', ctx.app.clock.now());
      return tx.hostingAccount.update({
        where: { id },
        data: {
          customDomain: domain,
          customDomainStatus: 'pending',
          customDomainAttachedAt: null,
          certDomains: [row.domain],
          certError: null,
        },
      });
    });
    return hostingView(updated, ctx.app.config.publicBaseUrl);
  } catch (err) {
    if (isUniqueViolation(err)) throw inUse();
    throw err;
  }
}

/** Follows the simulated DNS (A or CNAME chain, at most 8 hops) and says whether it reaches this account. */
async function dnsPointsHere(
  ctx: HostingContext,
  row: HostingRow,
  domain: string,
): Promise<{ ok: boolean; found: string | null }> {
  const host = serviceHostname(ctx.app.config.publicBaseUrl, row.username);
  let name = domain;
  let found: string | null = null;
  for (let hop = 0; hop < 8; hop++) {
    // The lookup waits on name servers the customer's domain chooses.
    const target = await waitOutside(() => ctx.app.hosting.resolveDns(ctx.app.prisma, name));
    if (target === null) break;
    found = target;
    if (target === row.ip || target === host) return { ok: true, found };
    if (isIP(target)) break;
    name = target;
  }
  return { ok: false, found };
}

/** Re-checks DNS; attaches the custom domain (and covers it by the certificate) once it points here. */
export async function verifyCustomDomain(ctx: HostingContext, id: string): Promise<HostingView> {
  const row = await activeHosting(ctx.db, id);
  if (!row.customDomain) throw notFound('Custom domain');
  const domain = row.customDomain;
  // Control is checked again when the domain goes live: the proof may be gone, or the domain registered to someone since.
  await requireDomainControl(ctx.app.prisma, row.accountId, domain, 'A custom domain');
  const { ok, found } = await dnsPointsHere(ctx, row, domain);
  const host = serviceHostname(ctx.app.config.publicBaseUrl, row.username);
  if (!ok) {
    const where = found === null ? 'has no DNS record yet' : `points to ${found}, not to this hosting account`;
    throw badRequest(
      `${domain} ${where}. Point it to ${row.ip} (A record) or to ${host} (CNAME), then verify again; DNS changes can take a while to be visible.`,
      'domain',
    );
  }
  if (row.customDomainStatus === 'attached') return hostingView(row, ctx.app.config.publicBaseUrl);
  const now = ctx.app.clock.now();
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'customDomain', 'verified', now);
    return tx.hostingAccount.update({
      where: { id },
      data: {
        customDomainStatus: 'attached',
        customDomainAttachedAt: now,
        certStatus: 'issued',
        certDomains: [row.domain, domain],
        certIssuedAt: now,
        certExpiresAt: new Date(now.getTime() + CERT_VALIDITY_DAYS * 86_400_000),
        certError: null,
      },
    });
  });
  return hostingView(updated, ctx.app.config.publicBaseUrl);
}

export async function detachCustomDomain(ctx: HostingContext, id: string): Promise<HostingView> {
  const row = await activeHosting(ctx.db, id);
  if (!row.customDomain) throw notFound('Custom domain');
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'customDomain', 'removed', ctx.app.clock.now());
    return tx.hostingAccount.update({
      where: { id },
      data: { customDomain: null, customDomainStatus: null, customDomainAttachedAt: null, certDomains: [row.domain] },
    });
  });
  return hostingView(updated, ctx.app.config.publicBaseUrl);
}

/** Certificate retry: the simulated CA checks each name's DNS again and issues for the primary domain plus an attached custom domain. */
export async function retryCertificate(ctx: HostingContext, id: string) {
  const row = await activeHosting(ctx.db, id);
  const now = ctx.app.clock.now();
  const domains = [row.domain];
  let error: string | null = null;
  if (row.customDomain && row.customDomainStatus === 'attached') {
    const { ok, found } = await dnsPointsHere(ctx, row, row.customDomain);
    if (ok) domains.push(row.customDomain);
    else
      error = `${row.customDomain} ${found === null ? 'has no DNS record' : `points to ${found}`}: the CA's HTTP challenge cannot reach this account, so it is left out of the certificate.`;
  }
  const updated = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'certificate', error ? 'failed' : 'issued', now);
    return tx.hostingAccount.update({
      where: { id },
      data: {
        certStatus: error ? 'failed' : 'issued',
        certDomains: domains,
        certIssuedAt: now,
        certExpiresAt: new Date(now.getTime() + CERT_VALIDITY_DAYS * 86_400_000),
        certError: error,
      },
    });
  });
  return certificateView(updated);
}
