import { resolveServerOrder } from '../catalogue/service.ts';
import { perMonth, walletMove, type Quote } from '../billing/quotes.ts';
import { chargeServerOrder } from '../billing/service.ts';
import { formatUsd } from '../billing/wallet.ts';
import { getServer, type ServiceContext } from './server-row.ts';
import { orderServer } from './service.ts';

/** What a customer orders: a plan of the catalogue, an OS template and a label (API 1.16). */
export interface CustomerServerOrder {
  productId: string;
  label: string;
  os?: string;
  osTemplate: string;
  sshKeyIds?: readonly string[] | null;
}

/**
 * A standalone server ordered by the customer: its first month invoiced and paid from the wallet
 * in the order's transaction, so a short balance orders nothing (400) and a paid order always
 * has its server. The server is `provisioning`, then `running` when the datacenter has built it
 * (`server.created`); it renews monthly from the wallet like every server.
 */
export async function orderServerForCustomer(ctx: ServiceContext, order: CustomerServerOrder, query: object = {}) {
  if (!ctx.principal) throw new Error('an order needs a caller');
  const { accountId } = ctx.principal;
  const now = ctx.app.clock.now();
  let invoice: Awaited<ReturnType<typeof chargeServerOrder>> | undefined;
  const server = await orderServer(ctx.db, ctx.app.provider, accountId, order, now, async (tx, s, monthly) => {
    invoice = await chargeServerOrder(tx, accountId, s, monthly, now);
  });
  if (!invoice) throw new Error('the order was not charged');
  return {
    server: await getServer(ctx.db, server.id, query),
    invoiceId: invoice.id,
    chargedUsdCents: invoice.totalUsdCents,
  };
}

/**
 * The price of an order before it is placed (MCP asks a person with it): the plan orderServer
 * resolves and its monthly price, the first month charged now from the wallet. Nothing is ordered.
 */
export async function quoteServerOrder(
  ctx: ServiceContext,
  order: { productId: unknown; os: unknown; osTemplate: unknown },
): Promise<Quote> {
  const { product } = await resolveServerOrder(ctx.db, order);
  const monthly = product.monthlyUsdCents;
  return {
    message: `Order ${product.id} for ${perMonth(monthly)}, ${formatUsd(monthly)} charged now; ${await walletMove(ctx.db, -monthly)}.`,
    terms: { productId: product.id, chargeNowUsdCents: monthly, monthlyUsdCents: monthly },
  };
}
