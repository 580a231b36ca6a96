import { money } from './format.tsx';
import { Link } from './router.tsx';

/** Whether a refusal is about money: the page then offers a way to top up. */
export const isMoneyRefusal = (message: string) => /insufficient wallet balance|top up/i.test(message);

/** Under a price: the wallet's balance, and a warning with a way to top up when it falls short. */
export function WalletCover(props: { balance: number; short: boolean }) {
  return (
    <>
      <p data-testid="wallet-balance">Wallet balance: {money(props.balance)}</p>
      {props.short && (
        <p class="error">
          The balance does not cover the first month. <Link href="/billing">Top up the wallet</Link>
        </p>
      )}
    </>
  );
}
