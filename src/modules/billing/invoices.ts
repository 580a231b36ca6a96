import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { GATEWAYS, paymentGateways, type GatewayName } from '../../provider/payments.ts';
import type { Tx } from '../../db/tx.ts';
import { z } from 'zod';
import { readInvoicePage } from './invoice-read.ts';
import { formatUsd, tryDebit } from './wallet.ts';

/**
 * Invoices (docs/REFERENCE.md: Billing): numbered `INV-<year>-<6 digits>` from a gap-free per-year
 * counter, line items in integer cents, currency USD, states open → paid | void. Issued by
 * orders, renewals and the operator (`invoice.created`); paid from the wallet or through a
 * card, online-payment or cryptocurrency gateway (`invoice.paid`).
 */
export const INVOICE_STATES = ['open', 'paid', 'void'] as const;
export const INVOICE_SOURCES = ['order', 'renewal', 'operator'] as const;
type InvoiceSource = (typeof INVOICE_SOURCES)[number];
export type PaymentMethod = GatewayName | 'wallet';
export const PAYMENT_METHODS = ['wallet', ...GATEWAYS] as const;
const CURRENCY = 'USD';

/** Invoice list page size (docs/REFERENCE.md: Billing). */
export const INVOICES_PAGE_DEFAULT = 20;
export const INVOICES_PAGE_MAX = 100;
/** Line items per invoice, and the largest amount of one line. */
export const MAX_INVOICE_ITEMS = 50;
export const MAX_ITEM_USD_CENTS = 100_000_000;

export function formatInvoiceNumber(year: number, seq: number): string {
  return `INV-${year}-${String(seq).padStart(6, '0')}`;
}

/**
 * The next value of a named counter. The upsert's row lock serialises concurrent callers
 * until their transaction ends, so numbers are unique and, as rolled-back increments are
 * rolled back too, gap-free.
 */
export async function nextCounter(tx: Tx, name: string): Promise<number> {
  const rows = await tx.$queryRaw<{ last: number }[]>`
    INSERT INTO "Counter" ("name", "last") VALUES (${name}, 1)
    ON CONFLICT ("name") DO UPDATE SET "last" = "Counter"."last" + 1
    RETURNING "last"`;
  return Number(rows[0].last);
}

export interface LineItem {
  description: string;
  amountUsdCents: number;
  periodStart?: Date | null;
  periodEnd?: Date | null;
}

export interface NewInvoice {
  accountId: string;
  source: InvoiceSource;
  /** What paying it completes (see onInvoicePaid). */
  purpose?: string | null;
  reference?: string | null;
  renewalKey?: string | null;
  items: LineItem[];
  dueAt: Date;
  now: Date;
}

type InvoiceRow = NonNullable<Awaited<ReturnType<Tx['invoice']['findFirst']>>>;
type InvoiceWithItems = InvoiceRow & {
  items: {
    position: number;
    description: string;
    amountUsdCents: number;
    periodStart: Date | null;
    periodEnd: Date | null;
  }[];
};

/** What paying an invoice of a purpose completes (extend a renewal, register a domain), in the paying transaction. */
export type PaidHandler = (tx: Tx, invoice: InvoiceWithItems, now: Date) => Promise<void>;
const paidHandlers = new Map<string, PaidHandler>();
export function onInvoicePaid(purpose: string, handler: PaidHandler): void {
  paidHandlers.set(purpose, handler);
}

/** Issues an invoice with its items and `invoice.created`, in the caller's transaction. */
export async function issueInvoice(tx: Tx, inv: NewInvoice): Promise<InvoiceWithItems> {
  if (!inv.items.length) throw new Error('an invoice needs at least one line item');
  for (const item of inv.items)
    if (!Number.isSafeInteger(item.amountUsdCents) || item.amountUsdCents < 0)
      throw new Error('line items are non-negative integers of cents');
  const year = inv.now.getUTCFullYear();
  const number = formatInvoiceNumber(year, await nextCounter(tx, `invoice:${year}`));
  const total = inv.items.reduce((sum, i) => sum + i.amountUsdCents, 0);
  const id = newId(ID_PREFIX.invoice, inv.now.getTime());
  const created = await tx.invoice.create({
    data: {
      id,
      accountId: inv.accountId,
      number,
      status: 'open',
      source: inv.source,
      purpose: inv.purpose ?? null,
      reference: inv.reference ?? null,
      renewalKey: inv.renewalKey ?? null,
      currency: CURRENCY,
      totalUsdCents: total,
      dueAt: inv.dueAt,
      createdAt: inv.now,
      items: {
        create: inv.items.map((item, position) => ({
          id: newId(ID_PREFIX.invoiceItem, inv.now.getTime()),
          position,
          description: item.description,
          amountUsdCents: item.amountUsdCents,
          periodStart: item.periodStart ?? null,
          periodEnd: item.periodEnd ?? null,
        })),
      },
    },
    include: ITEMS,
  });
  await recordEvent(
    tx,
    inv.accountId,
    'invoice.created',
    { invoiceId: id, invoiceNumber: number, status: 'open', totalUsdCents: total, currency: CURRENCY },
    inv.now,
  );
  return created;
}

const ITEMS = { items: { orderBy: { position: 'asc' as const } } };

/** Locks the invoice row: concurrent payments of one invoice queue here and the second finds it paid. */
async function lockInvoice(tx: Tx, id: string): Promise<InvoiceWithItems> {
  await tx.$queryRaw`SELECT "id" FROM "Invoice" WHERE "id" = ${id} FOR UPDATE`;
  const invoice = await tx.invoice.findUnique({ where: { id }, include: ITEMS });
  if (!invoice) throw notFound('Invoice');
  return invoice;
}

async function markPaid(
  tx: Tx,
  invoice: InvoiceWithItems,
  method: PaymentMethod,
  reference: string,
  now: Date,
): Promise<InvoiceWithItems> {
  const paid = await tx.invoice.update({
    where: { id: invoice.id },
    data: { status: 'paid', paidAt: now, paidWith: method, paymentReference: reference },
    include: ITEMS,
  });
  await recordEvent(
    tx,
    invoice.accountId,
    'invoice.paid',
    {
      invoiceId: invoice.id,
      invoiceNumber: invoice.number,
      totalUsdCents: invoice.totalUsdCents,
      currency: invoice.currency,
    },
    now,
  );
  const handler = invoice.purpose ? paidHandlers.get(invoice.purpose) : undefined;
  if (handler) await handler(tx, paid, now);
  return paid;
}

/**
 * Pays an open invoice through `method`. From the wallet: a debit for the total (400 and
 * nothing taken when the balance is short). Through a gateway: the simulated gateway
 * charges. 409 when the invoice is not open.
 */
export async function payInvoice(
  tx: Tx,
  invoiceId: string,
  method: PaymentMethod,
  now: Date,
): Promise<InvoiceWithItems> {
  const invoice = await lockInvoice(tx, invoiceId);
  if (invoice.status !== 'open')
    throw conflict(`Invoice ${invoice.number} is ${invoice.status}; only an open invoice can be paid.`);
  if (method === 'wallet') {
    const paid = await payFromWallet(tx, invoice, now);
    if (!paid) throw badRequest(await shortOfFunds(tx, invoice, 'nothing was charged.'), 'gateway');
    return paid;
  }
  const { chargeId } = await paymentGateways[method].charge(
    {
      accountId: invoice.accountId,
      amountUsdCents: invoice.totalUsdCents,
      description: `Invoice ${invoice.number}`,
      reference: invoice.id,
    },
    now,
  );
  return markPaid(tx, invoice, method, chargeId, now);
}

/**
 * Pays an order's invoice, just issued in the order's transaction, from the wallet: a short
 * balance refuses the order itself (400 naming no request value), so the transaction orders nothing.
 */
export async function payOrderFromWallet(tx: Tx, invoiceId: string, now: Date): Promise<InvoiceWithItems> {
  const invoice = await lockInvoice(tx, invoiceId);
  const paid = await payFromWallet(tx, invoice, now);
  if (!paid)
    throw badRequest(
      await shortOfFunds(tx, invoice, 'nothing was ordered. Top up the wallet first (POST /billing/wallet/deposits).'),
    );
  return paid;
}

/** The sentence of a wallet too short for `invoice`, ending with what became of the request. */
async function shortOfFunds(tx: Tx, invoice: InvoiceWithItems, outcome: string): Promise<string> {
  const wallet = await tx.wallet.findUnique({
    where: { accountId: invoice.accountId },
    select: { balanceUsdCents: true },
  });
  return `Insufficient wallet balance: invoice ${invoice.number} is ${formatUsd(invoice.totalUsdCents)} and the balance is ${formatUsd(wallet?.balanceUsdCents ?? 0)}; ${outcome}`;
}

/** Pays an open invoice from the wallet when the balance covers it; null (nothing taken) otherwise. */
async function payFromWallet(tx: Tx, invoice: InvoiceWithItems, now: Date): Promise<InvoiceWithItems | null> {
  if (invoice.totalUsdCents === 0) return markPaid(tx, invoice, 'wallet', '', now);
  const txn = await tryDebit(tx, {
    accountId: invoice.accountId,
    amountUsdCents: invoice.totalUsdCents,
    kind: 'invoice_payment',
    description: `Invoice ${invoice.number}`,
    reference: invoice.id,
    now,
  });
  return txn ? markPaid(tx, invoice, 'wallet', txn.id, now) : null;
}

/** Tries the wallet on an open invoice under its row lock (the renewal job's retry). */
export async function retryFromWallet(tx: Tx, invoiceId: string, now: Date): Promise<boolean> {
  const invoice = await lockInvoice(tx, invoiceId);
  if (invoice.status !== 'open') return false;
  return (await payFromWallet(tx, invoice, now)) !== null;
}

// ---------------------------------------------------------------- views

export function invoiceView(inv: InvoiceWithItems) {
  return {
    id: inv.id,
    number: inv.number,
    status: inv.status,
    source: inv.source,
    currency: inv.currency,
    totalUsdCents: inv.totalUsdCents,
    reference: inv.reference,
    items: inv.items.map((i) => ({
      description: i.description,
      amountUsdCents: i.amountUsdCents,
      periodStart: i.periodStart,
      periodEnd: i.periodEnd,
    })),
    dueAt: inv.dueAt,
    paidAt: inv.paidAt,
    paidWith: inv.paidWith,
    createdAt: inv.createdAt,
  };
}
export type InvoiceView = ReturnType<typeof invoiceView>;

/** The spec's page and limit, declared on the arguments (schema.ts). */
export const INVOICE_PAGE_RULES = {
  page: z.number().min(1).max(1_000_000),
  limit: z.number().min(1).max(INVOICES_PAGE_MAX),
};

/**
 * Invoices `offset` to `offset + limit` of the account, newest first, and how many it has: the
 * invoices' connection (schema.ts), which REST pages by the spec's page and limit.
 */
export async function invoiceRange(db: TenantDb, offset: number, limit: number) {
  const { rows, total } = await readInvoicePage(db, offset, limit);
  return { rows: rows.map(invoiceView), total };
}

export async function getInvoice(db: TenantDb, id: string) {
  const invoice = await db.invoice.findFirst({ where: { id }, include: ITEMS });
  if (!invoice) throw notFound('Invoice');
  return invoiceView(invoice);
}

/**
 * Where the account's open invoices stand at `now` (the account summary): how many are open and
 * their total, how many of them are past their due date and their total, and the oldest due date.
 */
export async function openInvoiceStanding(db: TenantDb, now: Date) {
  const open = await db.invoice.aggregate({
    where: { status: 'open' },
    _count: { _all: true },
    _sum: { totalUsdCents: true },
    _min: { dueAt: true },
  });
  const overdue = await db.invoice.aggregate({
    where: { status: 'open', dueAt: { lt: now } },
    _count: { _all: true },
    _sum: { totalUsdCents: true },
  });
  return {
    openCount: open._count._all,
    openTotalUsdCents: open._sum.totalUsdCents ?? 0,
    overdueCount: overdue._count._all,
    overdueTotalUsdCents: overdue._sum.totalUsdCents ?? 0,
    oldestDueAt: open._min.dueAt,
  };
}
