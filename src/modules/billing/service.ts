import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { GATEWAYS, isGateway } from '../../provider/payments.ts';
import { z } from 'zod';
import { cents, checkInput } from '../../core/input-schemas.ts';
import { ID_PREFIX } from '../../db/ids.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import {
  invoiceView,
  issueInvoice,
  MAX_INVOICE_ITEMS,
  MAX_ITEM_USD_CENTS,
  payInvoice,
  payOrderFromWallet,
  type LineItem,
  type PaymentMethod,
} from './invoices.ts';
import type { Quote } from './quotes.ts';
import { credit, deposit, formatUsd } from './wallet.ts';

/**
 * Opens an account's wallet. Every balance change goes through the ledger (wallet.ts): a
 * WalletTransaction row written in the same transaction as the balance update; an opening
 * balance is the first such row.
 */
export async function openWallet(tx: Tx, accountId: string, openingBalanceUsdCents: number, now: Date): Promise<void> {
  await tx.wallet.create({ data: { accountId, balanceUsdCents: 0 } });
  if (openingBalanceUsdCents > 0) {
    await credit(tx, {
      accountId,
      amountUsdCents: openingBalanceUsdCents,
      kind: 'opening_balance',
      description: 'Opening balance',
      now,
    });
  }
}

/** Auto-recharge limits (docs/REFERENCE.md: Billing). */
export const AUTO_RECHARGE_THRESHOLD_MAX = 1_000_000; // $10,000
export const AUTO_RECHARGE_AMOUNT_MIN = 500; // $5: card gateways refuse tiny charges
export const AUTO_RECHARGE_AMOUNT_MAX = 1_000_000; // $10,000
/** A single operator deposit: $1,000,000 at most (larger is a typo). */
const MAX_DEPOSIT_USD_CENTS = 100_000_000;

type WalletRow = {
  balanceUsdCents: number;
  autoRechargeEnabled: boolean;
  autoRechargeThresholdUsdCents: number | null;
  autoRechargeAmountUsdCents: number | null;
  updatedAt: Date;
};

function walletView(w: WalletRow) {
  return {
    balanceUsdCents: w.balanceUsdCents,
    currency: 'USD',
    // The wallet is always usable; `low` tells a balance under the auto-recharge threshold.
    state:
      w.autoRechargeThresholdUsdCents !== null &&
      w.autoRechargeEnabled &&
      w.balanceUsdCents < w.autoRechargeThresholdUsdCents
        ? 'low'
        : 'active',
    autoRecharge: {
      enabled: w.autoRechargeEnabled,
      thresholdUsdCents: w.autoRechargeThresholdUsdCents,
      amountUsdCents: w.autoRechargeAmountUsdCents,
      gateway: 'card',
    },
    updatedAt: w.updatedAt,
  };
}
export type WalletView = ReturnType<typeof walletView>;

async function findWallet(db: TenantDb): Promise<WalletRow> {
  const wallet = await db.wallet.findFirst();
  if (!wallet) throw notFound('Wallet');
  return wallet;
}

export async function getWallet(db: TenantDb) {
  return walletView(await findWallet(db));
}

type LedgerRow = NonNullable<Awaited<ReturnType<TenantDb['walletTransaction']['findFirst']>>>;

export function walletTransactionView(t: LedgerRow) {
  return {
    id: t.id,
    amountUsdCents: t.amountUsdCents,
    balanceAfterUsdCents: t.balanceAfterUsdCents,
    kind: t.kind,
    description: t.description,
    gateway: t.gateway,
    reference: t.reference,
    createdAt: t.createdAt,
  };
}

/** Ledger rows, newest first (docs/REFERENCE.md, Pagination: limit and cursor). */
export async function listWalletTransactions(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.walletTransaction, (q) => db.walletTransaction.findMany({ ...q }));
  return { ...page, data: page.data.map(walletTransactionView) };
}

/** The graph's read by id, shaped as the list shows them. */
export async function walletTransactionsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.walletTransaction.findMany({ where: { id: { in: [...ids] } } })).map(walletTransactionView);
}

/** Auto-recharge amounts, declared on the arguments (schema.ts). */
export const AUTO_RECHARGE_RULES = {
  threshold_usd_cents: cents(1, AUTO_RECHARGE_THRESHOLD_MAX),
  amount_usd_cents: cents(AUTO_RECHARGE_AMOUNT_MIN, AUTO_RECHARGE_AMOUNT_MAX),
};

/**
 * Sets auto-recharge. Any of the three fields may be sent; the result must be coherent:
 * enabling needs a threshold and an amount (sent now or set before). Returns the wallet.
 */
export async function setAutoRecharge(
  db: TenantDb,
  input: { enabled?: boolean | null; thresholdUsdCents?: number | null; amountUsdCents?: number | null },
) {
  await db.wallet.updateMany({ data: await nextAutoRecharge(db, input) });
  return walletView(await findWallet(db));
}

type AutoRechargeInput = Parameters<typeof setAutoRecharge>[1];

/** The auto-recharge settings a change leaves (setAutoRecharge's rule): 400 when they are not coherent. */
async function nextAutoRecharge(db: TenantDb, input: AutoRechargeInput) {
  if (input.enabled == null && input.thresholdUsdCents == null && input.amountUsdCents == null) {
    throw badRequest('Send at least one of enabled, threshold_usd_cents and amount_usd_cents.');
  }
  const threshold = input.thresholdUsdCents ?? undefined;
  const amount = input.amountUsdCents ?? undefined;
  const current = await findWallet(db);
  const next = {
    autoRechargeEnabled: input.enabled ?? current.autoRechargeEnabled,
    autoRechargeThresholdUsdCents: threshold ?? current.autoRechargeThresholdUsdCents,
    autoRechargeAmountUsdCents: amount ?? current.autoRechargeAmountUsdCents,
  };
  if (next.autoRechargeEnabled && next.autoRechargeThresholdUsdCents === null)
    throw badRequest('threshold_usd_cents is required to enable auto-recharge.', 'threshold_usd_cents');
  if (next.autoRechargeEnabled && next.autoRechargeAmountUsdCents === null)
    throw badRequest('amount_usd_cents is required to enable auto-recharge.', 'amount_usd_cents');
  return next;
}

/**
 * What an auto-recharge change lets the card be charged (MCP asks a person with it), from the
 * settings setAutoRecharge would leave; null when it leaves auto-recharge off (nothing charged).
 */
export async function quoteAutoRecharge(db: TenantDb, input: AutoRechargeInput): Promise<Quote | null> {
  const next = await nextAutoRecharge(db, input);
  if (!next.autoRechargeEnabled) return null;
  const amount = next.autoRechargeAmountUsdCents ?? 0;
  const threshold = next.autoRechargeThresholdUsdCents ?? 0;
  return {
    message: `Charge the card on file ${formatUsd(amount)} into the wallet each time a debit takes the balance below ${formatUsd(threshold)}.`,
    terms: { rechargeUsdCents: amount, thresholdUsdCents: threshold },
  };
}

// ---------------------------------------------------------------- operator API

function gatewayOf(value: unknown, allowWallet: boolean): PaymentMethod {
  if (isGateway(value) || (allowWallet && value === 'wallet')) return value as PaymentMethod;
  throw badRequest(
    `gateway must be one of ${[...GATEWAYS, ...(allowWallet ? ['wallet'] : [])].join(', ')}.`,
    'gateway',
  );
}

/** The operator API's deposit and invoice fields: declared once, enforced here (the operator API is not GraphQL). */
const OPERATOR_BILLING_RULES = {
  amountUsdCents: z.number().min(1).max(MAX_DEPOSIT_USD_CENTS),
  items: z.array(z.unknown()).min(1).max(MAX_INVOICE_ITEMS).meta({ itemsNoun: 'line items' }),
  itemDescription: z.string().trim().min(1).max(200),
  itemAmountUsdCents: z.number().min(1).max(MAX_ITEM_USD_CENTS),
};

function integer(value: unknown, schema: z.ZodType, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw badRequest(`${path} must be an integer.`, path);
  checkInput(schema, value, path);
  return value;
}

/** Operator deposit through a gateway: wallet credited, `wallet.deposit.received`. */
export async function operatorDeposit(
  prisma: PrismaClient,
  accountId: string,
  body: { amountUsdCents?: unknown; gateway?: unknown },
  now: Date,
) {
  const amount = integer(body.amountUsdCents, OPERATOR_BILLING_RULES.amountUsdCents, 'amountUsdCents');
  const gateway = gatewayOf(body.gateway, false) as Exclude<PaymentMethod, 'wallet'>;
  return prisma.$transaction(async (tx) => {
    const txn = await deposit(tx, {
      accountId,
      amountUsdCents: amount,
      gateway,
      kind: 'deposit',
      description: `Deposit by ${gateway}`,
      now,
    });
    return { transactionId: txn.id, amountUsdCents: amount, gateway, balanceUsdCents: txn.balanceAfterUsdCents };
  });
}

/** Operator invoice: items of {description, amountUsdCents}; due in 14 days; `invoice.created`. */
export async function operatorInvoice(prisma: PrismaClient, accountId: string, body: { items?: unknown }, now: Date) {
  const items = body.items;
  if (!Array.isArray(items)) throw badRequest('items must be an array of line items.', 'items');
  checkInput(OPERATOR_BILLING_RULES.items, items, 'items');
  const lines: LineItem[] = items.map((raw, i) => {
    const item = (raw ?? {}) as { description?: unknown; amountUsdCents?: unknown };
    const path = `items[${i}].description`;
    if (typeof item.description !== 'string') throw badRequest(`${path} must be a string.`, path);
    checkInput(OPERATOR_BILLING_RULES.itemDescription, item.description, path);
    return {
      description: item.description.trim(),
      amountUsdCents: integer(
        item.amountUsdCents,
        OPERATOR_BILLING_RULES.itemAmountUsdCents,
        `items[${i}].amountUsdCents`,
      ),
    };
  });
  return prisma.$transaction(async (tx) =>
    invoiceView(
      await issueInvoice(tx, {
        accountId,
        source: 'operator',
        items: lines,
        dueAt: new Date(now.getTime() + OPERATOR_INVOICE_DUE_DAYS * 86_400_000),
        now,
      }),
    ),
  );
}
const OPERATOR_INVOICE_DUE_DAYS = 14;

/** Operator marks an invoice paid through a gateway or the wallet (`invoice.paid`). */
export async function operatorPayInvoice(
  prisma: PrismaClient,
  invoiceId: string,
  body: { gateway?: unknown },
  now: Date,
) {
  const method = gatewayOf(body.gateway, true);
  if (!/^inv_[0-9a-z]{26}$/.test(invoiceId)) throw notFound('Invoice');
  return prisma.$transaction(async (tx) => invoiceView(await payInvoice(tx, invoiceId, method, now)));
}

/**
 * An order charged at once (a customer's, or the operator's with `"charge": true`): an invoice
 * for it, paid from the wallet in the order's transaction (400 and nothing ordered when the
 * balance is short).
 */
async function chargeOrder(tx: Tx, order: { accountId: string; reference: string; items: LineItem[]; now: Date }) {
  const invoice = await issueInvoice(tx, {
    accountId: order.accountId,
    source: 'order',
    reference: order.reference,
    items: order.items,
    dueAt: order.now,
    now: order.now,
  });
  return invoiceView(await payOrderFromWallet(tx, invoice.id, order.now));
}

/** A server ordered with `"charge": true`: its first month, invoiced and paid from the wallet (chargeOrder). */
export function chargeServerOrder(
  tx: Tx,
  accountId: string,
  server: { id: string; label: string; productId: string },
  monthlyUsdCents: number,
  now: Date,
) {
  return chargeOrder(tx, {
    accountId,
    reference: server.id,
    items: [
      { description: `Server "${server.label}" (${server.productId}), first month`, amountUsdCents: monthlyUsdCents },
    ],
    now,
  });
}
