import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest } from '../../errors.ts';
import type { Tx } from '../../provider/types.ts';

/**
 * The wallet ledger: the one place money moves. Every movement is a conditional UPDATE of
 * the balance plus a WalletTransaction row, both in the caller's transaction, so a purchase
 * that fails later in that transaction debits nothing. The debit's `balance >= amount`
 * condition is evaluated by the database under the row lock, so concurrent debits can never
 * take the balance below zero.
 */
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
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`wallet movement must be a positive integer of cents, got ${amount}`);
}

async function record(tx: Tx, m: Movement, signed: number, balanceAfter: number): Promise<WalletTransactionRow> {
  return tx.walletTransaction.create({
    data: {
      id: newId(ID_PREFIX.walletTransaction, m.now.getTime()),
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

/** Takes money from the prepaid balance; 400 (and nothing taken) when it does not cover the amount. */
export async function debit(tx: Tx, m: Movement): Promise<WalletTransactionRow> {
  checkAmount(m.amountUsdCents);
  const rows = await tx.$queryRaw<{ balanceUsdCents: number }[]>`
    UPDATE "Wallet" SET "balanceUsdCents" = "balanceUsdCents" - ${m.amountUsdCents}, "updatedAt" = now()
    WHERE "accountId" = ${m.accountId}::uuid AND "balanceUsdCents" >= ${m.amountUsdCents}
    RETURNING "balanceUsdCents"`;
  if (!rows.length) {
    const wallet = await tx.wallet.findUnique({ where: { accountId: m.accountId }, select: { balanceUsdCents: true } });
    throw badRequest(
      `Insufficient wallet balance: this costs ${formatUsd(m.amountUsdCents)} and the balance is ${formatUsd(wallet?.balanceUsdCents ?? 0)}. Top up the wallet and retry; nothing was charged.`,
    );
  }
  return record(tx, m, -m.amountUsdCents, Number(rows[0].balanceUsdCents));
}

/** Adds money to the prepaid balance. */
export async function credit(tx: Tx, m: Movement): Promise<WalletTransactionRow> {
  checkAmount(m.amountUsdCents);
  const rows = await tx.$queryRaw<{ balanceUsdCents: number }[]>`
    UPDATE "Wallet" SET "balanceUsdCents" = "balanceUsdCents" + ${m.amountUsdCents}, "updatedAt" = now()
    WHERE "accountId" = ${m.accountId}::uuid
    RETURNING "balanceUsdCents"`;
  if (!rows.length) throw new Error(`account ${m.accountId} has no wallet`);
  return record(tx, m, m.amountUsdCents, Number(rows[0].balanceUsdCents));
}

export function formatUsd(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
