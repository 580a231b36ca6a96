import { z } from 'zod';
import { cents } from '../../core/input-schemas.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { conflict } from '../../errors.ts';
import { GATEWAYS, type GatewayName } from '../../provider/payments.ts';
import { getInvoice, invoiceView, payInvoice, PAYMENT_METHODS, type PaymentMethod } from './invoices.ts';
import { walletTransactionView } from './service.ts';
import { walletMove, type Quote } from './quotes.ts';
import { deposit, formatUsd } from './wallet.ts';

// What a customer pays with (API 1.16, docs/REFERENCE.md: Billing): an open invoice, by the
// wallet or a gateway, and money into the wallet through a gateway. The operator API's deposit
// and payment (service.ts) are the same ledger moves without the account's own client.

/** What these services read of the request: the account's client, the caller and the clock. */
interface PaymentContext {
  db: TenantDb;
  principal: { accountId: string } | null;
  app: { clock: { now(): Date } };
}

/**
 * A top-up's amount and gateway, declared on the arguments (payments.schema.ts): $5 at least (card
 * gateways refuse tiny charges, as for auto-recharge), $10,000 at most per top-up (a larger one is
 * far more likely a typo than a purchase; the operator API credits more).
 */
export const PAYMENT_RULES = {
  amount_usd_cents: cents(500, 1_000_000),
  topUpGateway: z.enum(GATEWAYS),
  invoiceGateway: z.enum(PAYMENT_METHODS),
};

/**
 * Pays one of the account's open invoices (`invoice.paid`, and what paying it completes: a
 * renewal's period, a suspension lifted). 404 for an invoice that is not the account's, 409 when
 * it is not open, 400 with nothing taken when the wallet is short.
 */
export async function payOpenInvoice(ctx: PaymentContext, invoiceId: string, gateway: PaymentMethod) {
  // Read through the account's client first: another account's invoice is a 404 and is never locked.
  await getInvoice(ctx.db, invoiceId);
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => invoiceView(await payInvoice(tx, invoiceId, gateway, now)));
}

/**
 * What paying an invoice takes (MCP asks a person with it): its total, from the wallet or through
 * the gateway, as payInvoice charges it. A 404 or an invoice that is not open is refused now, as
 * paying it would be.
 */
export async function quoteInvoicePayment(
  ctx: PaymentContext,
  invoiceId: string,
  gateway: PaymentMethod,
): Promise<Quote> {
  const invoice = await getInvoice(ctx.db, invoiceId);
  if (invoice.status !== 'open')
    throw conflict(`Invoice ${invoice.number} is ${invoice.status}; only an open invoice can be paid.`);
  const total = invoice.totalUsdCents;
  const how =
    gateway === 'wallet' ? `from the wallet; ${await walletMove(ctx.db, -total)}` : `charged through ${gateway}`;
  return {
    message: `Pay invoice ${invoice.number} for ${formatUsd(total)}, ${how}.`,
    terms: { invoiceId, gateway, chargeNowUsdCents: total },
  };
}

/** What a top-up charges (MCP asks a person with it): the amount through the gateway, into the wallet. */
export async function quoteTopUp(ctx: PaymentContext, amountUsdCents: number, gateway: GatewayName): Promise<Quote> {
  return {
    message: `Charge ${formatUsd(amountUsdCents)} through ${gateway} into the wallet; ${await walletMove(ctx.db, amountUsdCents)}.`,
    terms: { gateway, chargeNowUsdCents: amountUsdCents },
  };
}

/** Credits the wallet with a charge through a gateway: the ledger's deposit row, `wallet.deposit.received`. */
export async function topUpWallet(ctx: PaymentContext, amountUsdCents: number, gateway: GatewayName) {
  if (!ctx.principal) throw new Error('a top-up needs a caller');
  const { accountId } = ctx.principal;
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const made = await deposit(tx, {
      accountId,
      amountUsdCents,
      gateway,
      kind: 'deposit',
      description: `Top-up by ${gateway}`,
      now,
    });
    return walletTransactionView(await tx.walletTransaction.findUniqueOrThrow({ where: { id: made.id } }));
  });
}
