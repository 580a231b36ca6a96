import { ID_PREFIX, newId } from '../../db/ids.ts';
import type { Tx } from '../../provider/types.ts';

/**
 * Opens an account's wallet. Every balance change is a WalletTransaction row written in the
 * same transaction as the balance update; an opening balance is the first such row.
 */
export async function openWallet(tx: Tx, accountId: string, openingBalanceUsdCents: number, now: Date): Promise<void> {
  await tx.wallet.create({ data: { accountId, balanceUsdCents: openingBalanceUsdCents } });
  if (openingBalanceUsdCents > 0) {
    await tx.walletTransaction.create({
      data: {
        id: newId(ID_PREFIX.walletTransaction, now.getTime()),
        accountId,
        amountUsdCents: openingBalanceUsdCents,
        balanceAfterUsdCents: openingBalanceUsdCents,
        kind: 'opening_balance',
        description: 'Opening balance',
        createdAt: now,
      },
    });
  }
}
