import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, HttpError, onEvent, refreshes } from '../api.ts';
import { money, StatusBadge, When } from '../format.tsx';
import { Section, useLive } from '../live-query.tsx';
import { AUTO_RECHARGE, AutoRechargeSettings, AutoRechargeSummary } from './billing-auto-recharge.tsx';
import { Invoices } from './billing-invoices.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

const WALLET_QUERY = graphql(
  `{ wallet {
  balanceUsdCents currency state
  autoRecharge { ...AutoRecharge }
} }`,
  [AUTO_RECHARGE],
);

/** Events after which the wallet or its ledger may have moved (paying from the wallet fires only invoice.paid). */
const BILLING_EVENTS = ['wallet.', 'invoice.'];

/** What the API calls each gateway, with the words the page uses for it. */
const TOP_UP_GATEWAYS = [
  ['card', 'Card'],
  ['online', 'Online payment'],
  ['crypto', 'Crypto'],
] as const;

const TXN_PAGE = 10;
/** The API's largest page: a live refresh re-reads at most this many of the rows already shown. */
const TXN_MAX = 100;

const TXN_QUERY = graphql(`query($first: Int, $after: String) { walletTransactions(first: $first, after: $after) {
  nodes { id kind amountUsdCents balanceAfterUsdCents description createdAt }
  pageInfo { hasNextPage endCursor }
} }`);
type Txn = ResultOf<typeof TXN_QUERY>['walletTransactions']['nodes'][number];

const kindText = (kind: string) => kind.replace(/_/g, ' ');

/** Credits with a plus sign and debits with a true minus, so the column reads as a ledger. */
const signed = (cents: number) => (cents < 0 ? `−${money(-cents)}` : `+${money(cents)}`);

/**
 * The top-up form: dollars in, cents out. The API judges the bounds ($5 to $10,000), so its
 * message is the one shown beside the field; only text that is not an amount is refused here.
 */
function TopUp(props: { onDone(): void }) {
  const [amount, setAmount] = useState('');
  const [gateway, setGateway] = useState<string>('card');
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setFieldError('');
    setError('');
    setDone('');
    const text = amount.trim().replace(/^\$/, '');
    if (!/^\d+(\.\d{1,2})?$/.test(text)) {
      setFieldError('Enter an amount in dollars, such as 25 or 25.50.');
      return;
    }
    const cents = Math.round(Number(text) * 100);
    setBusy(true);
    try {
      const r = await gql(
        graphql(
          'mutation($a: Int!, $g: String!) { walletDeposit(amountUsdCents: $a, gateway: $g) { amountUsdCents } }',
        ),
        { a: cents, g: gateway },
      );
      setDone(`Added ${money(r.walletDeposit.amountUsdCents)} to your wallet.`);
      setAmount('');
      props.onDone();
    } catch (err) {
      if (err instanceof HttpError && err.field === 'amountUsdCents') setFieldError(err.message);
      else setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-busy={busy} data-testid="top-up" noValidate>
      <h2>Top up</h2>
      <div class="fields">
        <label>
          Amount (USD)
          <input
            name="amount"
            inputMode="decimal"
            autocomplete="off"
            placeholder="25.00"
            value={amount}
            aria-invalid={fieldError ? 'true' : undefined}
            aria-describedby={fieldError ? 'top-up-amount-error' : 'top-up-amount-hint'}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
          {fieldError ? (
            <span id="top-up-amount-error" class="error field-error">
              {fieldError}
            </span>
          ) : (
            <span id="top-up-amount-hint" class="muted small">
              From $5 to $10,000.
            </span>
          )}
        </label>
        <label>
          Pay with
          <select name="gateway" value={gateway} onChange={(e) => setGateway(e.currentTarget.value)}>
            {TOP_UP_GATEWAYS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Topping up…' : 'Top up'}
      </button>
      <p role="status" class={error ? 'error' : 'ok'}>
        {error || done}
      </p>
    </form>
  );
}

/**
 * The ledger, newest first, a page at a time. A live refresh reads again as many rows as are
 * shown (from the top), so a new row pushes the others down instead of leaving a gap between pages.
 */
function Transactions(props: { reloadKey: number }) {
  const [rows, setRows] = useState<Txn[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  // A ref, not state: the event listener set up once must read the count shown now.
  const shown = useRef(0);
  shown.current = rows?.length ?? 0;

  useEffect(() => {
    let alive = true;
    const load = () =>
      gql(TXN_QUERY, { first: Math.min(TXN_MAX, Math.max(TXN_PAGE, shown.current)) }).then(
        (d) => {
          if (!alive) return;
          setRows(d.walletTransactions.nodes);
          setNext(d.walletTransactions.pageInfo.hasNextPage ? d.walletTransactions.pageInfo.endCursor : null);
        },
        (err: Error) => alive && setError(err.message),
      );
    void load();
    const off = onEvent((e) => {
      if (refreshes(e, BILLING_EVENTS)) void load();
    });
    return () => {
      alive = false;
      off();
    };
  }, [props.reloadKey]);

  const more = async () => {
    setLoadingMore(true);
    try {
      const d = await gql(TXN_QUERY, { first: TXN_PAGE, after: next });
      setRows((r) => [...(r ?? []), ...d.walletTransactions.nodes]);
      setNext(d.walletTransactions.pageInfo.hasNextPage ? d.walletTransactions.pageInfo.endCursor : null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <section class="card" data-testid="transactions">
      <h2>Transactions</h2>
      {error && <p class="error">{error}</p>}
      {!rows ? (
        !error && <p class="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p class="muted">No transactions yet.</p>
      ) : (
        // On a phone each row is a card (style.css: table.stack).
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Kind</th>
              <th scope="col">Details</th>
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col" class="num">
                Balance after
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id} data-testid="transaction">
                <td data-label="Date">
                  <When at={t.createdAt} />
                </td>
                <td data-label="Kind">{kindText(t.kind)}</td>
                <td data-label="Details" class="wrap">
                  {/* "Opening balance" says no more than its kind: a dash instead of saying it twice. */}
                  {t.description.toLowerCase() === kindText(t.kind) ? <span class="muted">—</span> : t.description}
                </td>
                <td data-label="Amount" class={`num ${t.amountUsdCents < 0 ? '' : 'credit'}`}>
                  {signed(t.amountUsdCents)}
                </td>
                <td data-label="Balance after" class="num">
                  {money(t.balanceAfterUsdCents)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" class="secondary" onClick={more} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}

export function Billing() {
  // Bumped after this page's own payments, so it updates even if the live connection is down.
  const [reloadKey, setReloadKey] = useState(0);
  const reload = () => setReloadKey((k) => k + 1);
  const wallet = useLive(WALLET_QUERY, BILLING_EVENTS, undefined, reloadKey);

  return (
    <div>
      <h1>Billing</h1>
      <div class="pair">
        <Section title="Wallet" testid="wallet" state={wallet}>
          {(d) => (
            <>
              <p class="big" data-testid="wallet-balance">
                {money(d.wallet.balanceUsdCents, d.wallet.currency)}
              </p>
              <dl class="facts">
                <dt>State</dt>
                <dd>
                  <StatusBadge status={d.wallet.state} />
                </dd>
                <dt>Auto-recharge</dt>
                <dd data-testid="auto-recharge-summary">
                  <AutoRechargeSummary auto={d.wallet.autoRecharge} />
                </dd>
              </dl>
              <AutoRechargeSettings auto={d.wallet.autoRecharge} onSaved={reload} />
            </>
          )}
        </Section>
        <TopUp onDone={reload} />
      </div>
      <Invoices reloadKey={reloadKey} onPaid={reload} balance={wallet.data?.wallet.balanceUsdCents} />
      <Transactions reloadKey={reloadKey} />
    </div>
  );
}
