import type { PrismaClient } from '../../generated/prisma/client.ts';
import { isUniqueViolation } from '../../db/tx.ts';
import type { ServerProvider } from '../../provider/types.ts';
import type { AreaRuntime, DueRenewal } from '../area-runtime.ts';
import { AREA_RUNTIMES } from '../runtimes.ts';
import { issueInvoice, onInvoicePaid, retryFromWallet } from './invoices.ts';
import { formatUsd } from './wallet.ts';

/**
 * Renewals (docs/REFERENCE.md: Billing). Servers (with their add-ons) and capacity pools renew monthly
 * from their renewal date on the simulated clock. When one is due the job issues a renewal
 * invoice for the period (`invoice.created`) and pays it from the wallet when the balance
 * covers the whole invoice (one debit, `invoice.paid`, the period moves on, all in one
 * transaction). Otherwise the invoice stays open; the job retries the wallet on every run
 * (so a deposit settles it), and once the grace period after the due date has passed the
 * resource is suspended (`server.suspended` with the reason). Paying the overdue invoice
 * later (wallet or operator) lifts the suspension: the server comes back stopped.
 *
 * The unique `renewalKey` (resource and period start) means a period is invoiced once,
 * however often the job runs and however many instances run it.
 */
export const GRACE_DAYS = 3;
const DAY_MS = 86_400_000;
/** Passes per run: a clock jump over several months renews one period per pass. */
const MAX_PASSES = 48;

/** Every resource kind that renews: each area's runtime hands in its hooks, its manifest names the invoice purpose. */
type RenewalSource = NonNullable<AreaRuntime['renewal']>;
const SOURCES: RenewalSource[] = AREA_RUNTIMES.flatMap((r) => (r.renewal ? [r.renewal] : []));

export function renewalKey(resourceId: string, periodStart: Date): string {
  return `${resourceId}@${periodStart.toISOString()}`;
}

/** When an unpaid renewal invoice due at `dueAt` suspends its resource. */
export function graceEnds(dueAt: Date): Date {
  return new Date(dueAt.getTime() + GRACE_DAYS * DAY_MS);
}

for (const source of SOURCES) {
  // Paying a renewal invoice (wallet, gateway, operator) moves the period on and lifts a suspension it caused.
  onInvoicePaid(source.purpose, async (tx, invoice, now) => {
    const item = invoice.items[0];
    if (!invoice.reference || !item?.periodStart || !item.periodEnd) return;
    await source.extend(tx, invoice.reference, item.periodStart, item.periodEnd);
    if (invoice.suspendedAt) await source.reactivate(tx, invoice.reference, now);
  });
}

/** Runs what is due at `now`; returns how many invoices it issued, paid or acted on. */
export async function runRenewals(prisma: PrismaClient, provider: ServerProvider, now: Date): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const done = (await renewDue(prisma, now)) + (await suspendOverdue(prisma, provider, now));
    total += done;
    if (!done) break;
  }
  return total;
}

/** Issues the invoice of each due period (once) and pays it from the wallet when it covers it. */
async function renewDue(prisma: PrismaClient, now: Date): Promise<number> {
  const due: { source: RenewalSource; r: DueRenewal }[] = [];
  for (const source of SOURCES) for (const r of await source.due(prisma, now)) due.push({ source, r });
  // Oldest period first across sources, so the ledger follows the calendar.
  due.sort(
    (a, b) => a.r.periodStart.getTime() - b.r.periodStart.getTime() || a.r.resourceId.localeCompare(b.r.resourceId),
  );
  let changed = 0;
  for (const { source, r } of due) {
    const key = renewalKey(r.resourceId, r.periodStart);
    try {
      changed += await prisma.$transaction(async (tx) => {
        const existing = await tx.invoice.findUnique({
          where: { renewalKey: key },
          select: { id: true, status: true },
        });
        if (existing) return existing.status === 'open' && (await retryFromWallet(tx, existing.id, now)) ? 1 : 0;
        const invoice = await issueInvoice(tx, {
          accountId: r.accountId,
          source: 'renewal',
          purpose: source.purpose,
          reference: r.resourceId,
          renewalKey: key,
          items: r.items.map((i) => ({ ...i, periodStart: r.periodStart, periodEnd: r.periodEnd })),
          dueAt: r.periodStart,
          now,
        });
        await retryFromWallet(tx, invoice.id, now);
        return 1;
      });
    } catch (err) {
      // Another instance issued this period's invoice at the same moment: it is theirs to pay.
      if (!isUniqueViolation(err)) throw err;
    }
  }
  return changed;
}

/** Suspends the resource of each renewal invoice still open when its grace period has ended. */
async function suspendOverdue(prisma: PrismaClient, provider: ServerProvider, now: Date): Promise<number> {
  const overdue = await prisma.invoice.findMany({
    where: {
      status: 'open',
      source: 'renewal',
      suspendedAt: null,
      dueAt: { lte: new Date(now.getTime() - GRACE_DAYS * DAY_MS) },
    },
    orderBy: { dueAt: 'asc' },
    take: 200,
  });
  let changed = 0;
  for (const invoice of overdue) {
    const source = SOURCES.find((s) => s.purpose === invoice.purpose);
    if (!source || !invoice.reference) continue;
    const reason = `non-payment: renewal invoice ${invoice.number} (${formatUsd(invoice.totalUsdCents)}) unpaid ${GRACE_DAYS} days after its due date`;
    changed += await prisma.$transaction(async (tx) => {
      const { count } = await tx.invoice.updateMany({
        where: { id: invoice.id, status: 'open', suspendedAt: null },
        data: { suspendedAt: now },
      });
      if (!count) return 0;
      const found = await source.suspend(tx, provider, invoice.reference!, reason, now);
      // The resource was terminated or deleted before it was paid: nothing is owed any more.
      if (!found) await tx.invoice.update({ where: { id: invoice.id }, data: { status: 'void' } });
      return 1;
    });
  }
  return changed;
}
