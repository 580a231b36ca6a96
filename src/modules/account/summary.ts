import type { TenantDb } from '../../db/tenant.ts';
import type { Scope } from '../../scopes.ts';
import { openInvoiceStanding } from '../billing/invoices.ts';
import { getWallet } from '../billing/service.ts';
import { domainRenewalsBy } from '../domains/service.ts';
import { poolQuotaUse } from '../pools/quota-use.ts';
import { poolRenewalsBy, suspendedPools } from '../pools/renewals.ts';
import { serverRenewalsBy } from '../servers/renewals.ts';
import { suspendedServers } from '../servers/suspension.ts';

/**
 * The account summary (docs/REFERENCE.md: Account summary): where the account stands at the
 * app's clock — the wallet, the open and overdue invoices, what renews in the next 30 days, what
 * is suspended and how much of each pool's quota is in use — in one read. Each section is shown only with the read scope of what it
 * shows, as the event history shows each event only with its kind's read scope: a section the
 * credential cannot read is null, and `hidden` names it with the scope that would show it.
 * Every kind is read through its own module's service.
 */

/** The renewal window: what renews before `now` plus this many days. */
export const RENEWAL_WINDOW_DAYS = 30;
/** At most this many items of each kind in a list, soonest (or oldest) first; each kind's list operation has the rest. */
export const SUMMARY_ITEMS_MAX = 100;
const DAY_MS = 86_400_000;

/** Each section and the scope that shows it, in the order `hidden` names them. */
export const SUMMARY_SECTIONS = {
  wallet: 'billing:read',
  invoices: 'billing:read',
  'renewals.servers': 'servers:read',
  'renewals.pools': 'servers:read',
  'renewals.domains': 'domains:read',
  'suspended.servers': 'servers:read',
  'suspended.pools': 'servers:read',
  'quotas.pools': 'servers:read',
} as const satisfies Record<string, Scope>;
type Section = keyof typeof SUMMARY_SECTIONS;

/** One thing that renews in the window: what the renewal will bill, and for how long a period. */
export interface SummaryRenewal {
  type: 'server' | 'pool' | 'domain';
  id: string;
  name: string;
  renewsAt: Date;
  /** Null when the price is unknown (a domain whose TLD the registrar no longer sells). */
  amountUsdCents: number | null;
  period: 'month' | 'year';
}

/** One suspended thing and why (null when the kind records no reason). */
export interface SummarySuspended {
  type: 'server' | 'pool';
  id: string;
  name: string;
  reason: string | null;
}

export async function accountSummary(db: TenantDb, scopes: ReadonlySet<string>, now: Date) {
  const can = (section: Section) => scopes.has(SUMMARY_SECTIONS[section]);
  const shown = async <T>(section: Section, read: () => Promise<T>): Promise<T | null> =>
    can(section) ? read() : null;
  const through = new Date(now.getTime() + RENEWAL_WINDOW_DAYS * DAY_MS);
  const take = SUMMARY_ITEMS_MAX;

  const wallet = await shown('wallet', async () => {
    const w = await getWallet(db);
    return { balanceUsdCents: w.balanceUsdCents, autoRechargeEnabled: w.autoRecharge.enabled };
  });
  const invoices = await shown('invoices', () => openInvoiceStanding(db, now));
  const renewals = {
    through,
    servers: await shown('renewals.servers', async () =>
      (await serverRenewalsBy(db, through, take)).map(
        (s): SummaryRenewal => ({
          type: 'server',
          id: s.id,
          name: s.label,
          renewsAt: s.renewsAt,
          amountUsdCents: s.amountUsdCents,
          period: 'month',
        }),
      ),
    ),
    pools: await shown('renewals.pools', async () =>
      (await poolRenewalsBy(db, through, take)).map(
        (p): SummaryRenewal => ({
          type: 'pool',
          id: p.id,
          name: p.label,
          renewsAt: p.paidUntil,
          amountUsdCents: p.monthlyUsdCents,
          period: 'month',
        }),
      ),
    ),
    domains: await shown('renewals.domains', async () =>
      (await domainRenewalsBy(db, through, take)).map(
        (d): SummaryRenewal => ({
          type: 'domain',
          id: d.id,
          name: d.name,
          renewsAt: d.expiresAt,
          amountUsdCents: d.yearlyUsdCents,
          period: 'year',
        }),
      ),
    ),
  };
  const suspended = {
    servers: await shown('suspended.servers', async () =>
      (await suspendedServers(db, take)).map(
        (s): SummarySuspended => ({ type: 'server', id: s.id, name: s.label, reason: s.suspendReason }),
      ),
    ),
    pools: await shown('suspended.pools', async () =>
      (await suspendedPools(db, take)).map(
        (p): SummarySuspended => ({ type: 'pool', id: p.id, name: p.label, reason: null }),
      ),
    ),
  };
  const quotas = {
    pools: await shown('quotas.pools', async () =>
      (await poolQuotaUse(db, take)).map(({ label, ...pool }) => ({ ...pool, name: label })),
    ),
  };
  const hidden = (Object.keys(SUMMARY_SECTIONS) as Section[])
    .filter((section) => !can(section))
    .map((section) => ({ section, scope: SUMMARY_SECTIONS[section] }));
  return { asOf: now, wallet, invoices, renewals, suspended, quotas, hidden };
}

export type AccountSummary = Awaited<ReturnType<typeof accountSummary>>;
