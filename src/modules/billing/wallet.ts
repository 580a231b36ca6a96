import { ID_PREFIX, idTimeMs, newId } from '../../db/ids.ts';
import { badRequest } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { paymentGateways, type GatewayName } from '../../provider/payments.ts';
import type { Tx } from '../../db/tx.ts';

/**
 * The wallet ledger: the one place money moves. Every movement is a conditional UPDATE of
 * the balance plus a WalletTransaction row, both in the caller's transaction, so a purchase
 * that fails later in that transaction debits nothing. The debit's `balance >= amount`
 * condition is evaluated by the database under the row lock, so concurrent debits can never
 * take the balance below zero.
 */
/** The kinds of wallet movement (a transaction's `kind`). */
export const MOVEMENT_KINDS = [
  'opening_balance',
  'deposit',
  'auto_recharge',
  'invoice_payment',
  'addon_purchase',
  'pool_purchase',
  'pool_resize',
] as const;
/** `low`: auto-recharge is on and the balance is under its threshold. */
export const WALLET_STATES = ['active', 'low'] as const;
/** The gateway auto-recharge top-ups go through. */
export const AUTO_RECHARGE_GATEWAYS = ['card'] as const satisfies readonly GatewayName[];

export interface Movement {
  accountId: string;
  amountUsdCents: number;
  /** Machine-readable kind: `addon_purchase`, `pool_purchase`, `pool_resize`, `deposit`... */
  kind: string;
  description: string;
  /** What the movement is for (`srv_...`, `pool_...`). */
  reference?: string | null;
  gateway?: string | null;
  now: Date;
}

export interface WalletTransactionRow {
  id: string;
  amountUsdCents: number;
  balanceAfterUsdCents: number;
}

function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new Error(`wallet movement must be a positive integer of cents, got ${amount}`);
}

/**
 * An id after the account's last ledger row, so the ledger reads in the order the movements
 * happened even within one millisecond (ids sort by time, then by random bits). The caller
 * holds the wallet row lock, so movements of one account cannot interleave here.
 */
async function nextTransactionId(tx: Tx, accountId: string, now: Date): Promise<string> {
  const last = await tx.walletTransaction.findFirst({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  const id = newId(ID_PREFIX.walletTransaction, now.getTime());
  return !last || id > last.id ? id : newId(ID_PREFIX.walletTransaction, idTimeMs(last.id) + 1);
}

async function record(tx: Tx, m: Movement, signed: number, balanceAfter: number): Promise<WalletTransactionRow> {
  return tx.walletTransaction.create({
    data: {
      id: await nextTransactionId(tx, m.accountId, m.now),
      accountId: m.accountId,
      amountUsdCents: signed,
      balanceAfterUsdCents: balanceAfter,
      kind: m.kind,
      description: m.description,
      reference: m.reference ?? null,
      gateway: m.gateway ?? null,
      createdAt: m.now,
    },
    select: { id: true, amountUsdCents: true, balanceAfterUsdCents: true },
  });
}

/**
 * Takes money from the prepaid balance when it covers the amount; null (and nothing taken)
 * when it does not. A debit that takes the balance from at or above the auto-recharge
 * threshold to below it tops the wallet up once, in the same transaction (see autoRecharge).
 */
export async function tryDebit(tx: Tx, m: Movement): Promise<WalletTransactionRow | null> {
  checkAmount(m.amountUsdCents);
  const rows = await tx.$queryRaw<
    {
      balanceUsdCents: number;
      autoRechargeEnabled: boolean;
      autoRechargeThresholdUsdCents: number | null;
      autoRechargeAmountUsdCents: number | null;
    }[]
  >`
    UPDATE "Wallet" SET "balanceUsdCents" = "balanceUsdCents" - ${m.amountUsdCents}, "updatedAt" = ${m.now}
    WHERE "accountId" = ${m.accountId}::uuid AND "balanceUsdCents" >= ${m.amountUsdCents}
    RETURNING "balanceUsdCents", "autoRechargeEnabled", "autoRechargeThresholdUsdCents", "autoRechargeAmountUsdCents"`;
  if (!rows.length) return null;
  const after = Number(rows[0].balanceUsdCents);
  const row = await record(tx, m, -m.amountUsdCents, after);
  const { autoRechargeEnabled, autoRechargeThresholdUsdCents: threshold, autoRechargeAmountUsdCents: amount } = rows[0];
  if (
    autoRechargeEnabled &&
    threshold !== null &&
    amount !== null &&
    after + m.amountUsdCents >= Number(threshold) &&
    after < Number(threshold)
  ) {
    await deposit(tx, {
      accountId: m.accountId,
      amountUsdCents: Number(amount),
      gateway: 'card',
      kind: 'auto_recharge',
      description: `Auto-recharge: the balance fell below ${formatUsd(Number(threshold))}`,
      now: m.now,
    });
  }
  return row;
}

/** Takes money from the prepaid balance; 400 (and nothing taken) when it does not cover the amount. */
export async function debit(tx: Tx, m: Movement): Promise<WalletTransactionRow> {
  const row = await tryDebit(tx, m);
  if (!row) {
    const wallet = await tx.wallet.findUnique({ where: { accountId: m.accountId }, select: { balanceUsdCents: true } });
    throw badRequest(
      `Insufficient wallet balance: this costs ${formatUsd(m.amountUsdCents)} and the balance is ${formatUsd(wallet?.balanceUsdCents ?? 0)}. Top up the wallet and retry; nothing was charged.`,
    );
  }
  return row;
}

/**
 * A top-up through a payment gateway: the gateway charges, the wallet is credited with a
 * transaction row carrying the gateway and its charge id, and `wallet.deposit.received`
 * fires, all in the caller's transaction. Credits never trigger an auto-recharge, so a
 * recharge cannot loop.
 */
export async function deposit(
  tx: Tx,
  d: {
    accountId: string;
    amountUsdCents: number;
    gateway: GatewayName;
    kind: 'deposit' | 'auto_recharge';
    description: string;
    now: Date;
  },
): Promise<WalletTransactionRow> {
  checkAmount(d.amountUsdCents);
  const { chargeId } = await paymentGateways[d.gateway].charge(
    { accountId: d.accountId, amountUsdCents: d.amountUsdCents, description: d.description },
    d.now,
  );
  const row = await credit(tx, {
    accountId: d.accountId,
    amountUsdCents: d.amountUsdCents,
    kind: d.kind,
    description: d.description,
    gateway: d.gateway,
    reference: chargeId,
    now: d.now,
  });
  await recordEvent(
    tx,
    d.accountId,
    'wallet.deposit.received',
    { amountUsdCents: d.amountUsdCents, gateway: d.gateway, transactionId: row.id },
    d.now,
  );
  return row;
}

/** Adds money to the prepaid balance. */
export async function credit(tx: Tx, m: Movement): Promise<WalletTransactionRow> {
  checkAmount(m.amountUsdCents);
  const rows = await tx.$queryRaw<{ balanceUsdCents: number }[]>`
    UPDATE "Wallet" SET "balanceUsdCents" = "balanceUsdCents" + ${m.amountUsdCents}, "updatedAt" = ${m.now}
    WHERE "accountId" = ${m.accountId}::uuid
    RETURNING "balanceUsdCents"`;
  if (!rows.length) throw new Error(`account ${m.accountId} has no wallet`);
  return record(tx, m, m.amountUsdCents, Number(rows[0].balanceUsdCents));
}

export function formatUsd(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
