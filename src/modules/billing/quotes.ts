import type { TenantDb } from '../../db/tenant.ts';
import { notFound } from '../../errors.ts';
import { formatUsd } from './wallet.ts';

/**
 * What a person is asked before an agent spends or destroys (src/schema/operation.ts
 * `consequence`): the sentence, and the terms a confirmation is bound to. The terms are the
 * price (what is charged now, what recurs), never the wallet balance, which may move for other
 * reasons between the question and the answer. Each spending operation's quote function sits
 * beside its service function and computes the price with the same code the charge uses.
 */
export interface Quote {
  message: string;
  terms: Record<string, string | number | boolean | null>;
}

/** "$24.00/month". */
export const perMonth = (cents: number) => `${formatUsd(cents)}/month`;

/** The wallet before and after a debit, as the question says it: "wallet $50.00 → $26.00". */
export async function walletMove(db: TenantDb, changeUsdCents: number): Promise<string> {
  const wallet = await db.wallet.findFirst({ select: { balanceUsdCents: true } });
  if (!wallet) throw notFound('Wallet');
  const after = wallet.balanceUsdCents + changeUsdCents;
  const short = after < 0 ? ' (short: the operation will be refused and nothing charged)' : '';
  return `wallet ${formatUsd(wallet.balanceUsdCents)} → ${formatUsd(after)}${short}`;
}
