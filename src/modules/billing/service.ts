import type { Tx } from '../../provider/types.ts';
import { credit } from './wallet.ts';

/**
 * Opens an account's wallet. Every balance change goes through the ledger (wallet.ts): a
 * WalletTransaction row written in the same transaction as the balance update; an opening
 * balance is the first such row.
 */
export async function openWallet(tx: Tx, accountId: string, openingBalanceUsdCents: number, now: Date): Promise<void> {
  await tx.wallet.create({ data: { accountId, balanceUsdCents: 0 } });
  if (openingBalanceUsdCents > 0) {
    await credit(tx, { accountId, amountUsdCents: openingBalanceUsdCents, kind: 'opening_balance', description: 'Opening balance', now });
  }
}
