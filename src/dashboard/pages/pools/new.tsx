import { useRef, useState } from 'preact/hooks';
import { isMoneyRefusal, WalletCover } from '../../wallet-cover.tsx';
import { gql, HttpError } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import { money } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Link, navigate, BackLink } from '../../router.tsx';
import {
  BOUNDS,
  clampUnits,
  described,
  type Unit,
  UNIT_TEXT,
  UNITS,
  type Units,
  UnitSliders,
  useQuote,
} from './units.tsx';
import { graphql } from '../../graphql.ts';

const CATALOGUE_QUERY = graphql(
  `{
  poolCatalogue { nodes { productId name bounds { ...Bounds } ratesCents { vcpu ram2gb disk100 ip16 } unitSizes { vcpu ram2gb disk100 ip16 } } }
  wallet { balanceUsdCents }
}`,
  [BOUNDS],
);

const QUOTE_QUERY = graphql(`query($productId: String!, $vcpu: Int!, $ram2gb: Int!, $disk100: Int!, $ip16: Int!) {
  poolQuote(productId: $productId, vcpu: $vcpu, ram2gb: $ram2gb, disk100: $disk100, ip16: $ip16) {
    monthlyUsdCents breakdown { unit quantity amountUsdCents description }
  }
}`);

const CREATE_MUTATION =
  graphql(`mutation($productId: String!, $label: String!, $vcpu: Int!, $ram2gb: Int!, $disk100: Int!, $ip16: Int!) {
  poolCreate(productId: $productId, label: $label, vcpu: $vcpu, ram2gb: $ram2gb, disk100: $disk100, ip16: $ip16) { id }
}`);

/** A first shape to start from: small but with one block of addresses, inside the product's bounds. */
const STARTER: Units = { vcpu: 4, ram2gb: 4, disk100: 1, ip16: 1 };

const LABEL_MAX = 64;
const FIELDS = ['label', 'productId', ...UNITS];

/** /pools/new: choose a product, size the pool with sliders, see its price live, buy it from the wallet. */
export function BuyPool() {
  const state = useLive(CATALOGUE_QUERY, ['wallet.', 'invoice.']);
  const [productId, setProductId] = useState('');
  const [chosen, setChosen] = useState<Units | null>(null);
  const [label, setLabel] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const confirmation = useRef<HTMLDialogElement>(null);

  const products = state.data?.poolCatalogue.nodes ?? [];
  const product = products.find((p) => p.productId === productId) ?? products[0];
  const units = product ? clampUnits(chosen ?? STARTER, product.bounds) : null;
  const quote = useQuote(QUOTE_QUERY, product && units ? { productId: product.productId, ...units } : null);

  if (state.error)
    return (
      <section class="card">
        <h1>Buy a capacity pool</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  if (!state.data || !units) return <p class="muted">Loading…</p>;
  if (!product)
    return (
      <section class="card">
        <h1>Buy a capacity pool</h1>
        <p class="muted">No pool products are on sale at the moment.</p>
      </section>
    );

  const balance = state.data.wallet.balanceUsdCents;
  const monthly = quote.quote?.poolQuote.monthlyUsdCents;
  const short = monthly !== undefined && !quote.pending && monthly > balance;
  const buyBlocked = busy
    ? 'The pool is being bought.'
    : quote.error
      ? 'This selection cannot be priced; see the message above.'
      : quote.pending || !quote.quote
        ? 'Waiting for the price of this selection.'
        : null;

  // Buying charges the wallet at once: the form asks first, in a dialog naming the sum.
  const submit = (e: Event) => {
    e.preventDefault();
    const trimmed = label.trim();
    if (!trimmed) return setErrors({ label: 'Give the pool a label.' });
    if (trimmed.length > LABEL_MAX) return setErrors({ label: `A label is at most ${LABEL_MAX} characters.` });
    if (buyBlocked) return;
    setErrors({});
    confirmation.current?.showModal();
  };

  const buy = async () => {
    const trimmed = label.trim();
    setBusy(true);
    try {
      const { poolCreate } = await gql(CREATE_MUTATION, {
        productId: product.productId,
        label: trimmed,
        ...units,
      });
      navigate(`/pools/${poolCreate.id}`);
    } catch (err) {
      const { message } = err as Error;
      const field = err instanceof HttpError ? err.field : undefined;
      setErrors(field && FIELDS.includes(field) ? { [field]: message } : { form: message });
      setBusy(false);
    }
  };

  const hints = Object.fromEntries(
    UNITS.map((u) => [u, `Steps of ${product.unitSizes[u]}, ${money(product.ratesCents[u])} a month each.`]),
  ) as Record<Unit, string>;

  return (
    <div>
      <BackLink href="/pools" label="Capacity pools" />
      <h1>Buy a capacity pool</h1>
      <dialog ref={confirmation} class="confirm" aria-labelledby="pool-buy-title" data-testid="pool-buy-confirm">
        <h2 id="pool-buy-title">{`Buy the pool “${label.trim()}”?`}</h2>
        <p>
          {monthly !== undefined &&
            `${money(monthly)} is charged now from your wallet (balance ${money(balance)}) for the first month; then ${money(monthly)} every month until you delete the pool.`}
        </p>
        <div class="actions">
          <button type="button" class="secondary" autofocus onClick={() => confirmation.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            onClick={() => {
              confirmation.current?.close();
              void buy();
            }}
          >
            {monthly !== undefined ? `Pay ${money(monthly)} and buy` : 'Buy pool'}
          </button>
        </div>
      </dialog>
      <form class="card order" onSubmit={submit} noValidate aria-busy={busy}>
        {products.length > 1 && (
          <fieldset aria-describedby={errors.productId ? 'pool-product-error' : undefined}>
            <legend>Location</legend>
            <div class="plan-grid">
              {products.map((p) => (
                <label key={p.productId} class={`plan-card${p.productId === product.productId ? ' selected' : ''}`}>
                  <input
                    type="radio"
                    name="product"
                    value={p.productId}
                    checked={p.productId === product.productId}
                    onChange={() => setProductId(p.productId)}
                  />
                  <span class="plan-name">{p.name}</span>
                  <span class="small mono">{p.productId}</span>
                </label>
              ))}
            </div>
            {errors.productId && (
              <p id="pool-product-error" class="error field-error">
                {errors.productId}
              </p>
            )}
          </fieldset>
        )}
        <fieldset>
          <legend>Size</legend>
          <UnitSliders
            idPrefix="buy"
            units={units}
            bounds={product.bounds}
            hints={hints}
            errors={errors}
            disabled={busy}
            onChange={setChosen}
          />
        </fieldset>
        <label>
          Label
          <input
            value={label}
            maxLength={LABEL_MAX + 16}
            autoComplete="off"
            onInput={(e) => setLabel(e.currentTarget.value)}
            {...described(errors.label, 'pool-label-error', 'pool-label-hint')}
          />
        </label>
        <p id="pool-label-hint" class="small muted hint">
          1–{LABEL_MAX} characters, e.g. cluster-fra.
        </p>
        {errors.label && (
          <p id="pool-label-error" class="error field-error">
            {errors.label}
          </p>
        )}
        <div class="price" data-testid="pool-quote" aria-live="polite" aria-busy={quote.pending}>
          {quote.error ? (
            <p class="error">{quote.error.message}</p>
          ) : monthly === undefined ? (
            <p class="muted">Pricing…</p>
          ) : (
            <>
              <p>
                <strong data-testid="pool-monthly">{money(monthly)} per month</strong>
                {quote.pending && <span class="muted"> · updating…</span>}
              </p>
              <p data-testid="pool-charge-now">Charged now: {money(monthly)}, the first month, from your wallet.</p>
              <ul class="plain small quote-lines">
                {quote.quote?.poolQuote.breakdown.map((l) => (
                  <li key={l.unit}>
                    <span>
                      {UNIT_TEXT[l.unit as Unit]?.label ?? l.unit}: {UNIT_TEXT[l.unit as Unit]?.value(l.quantity)}
                    </span>
                    <span>{money(l.amountUsdCents)}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <WalletCover balance={balance} short={short} />
        </div>
        {errors.form && (
          <div role="alert" class="error refusal">
            <p>{errors.form}</p>
            {isMoneyRefusal(errors.form) && (
              <p>
                <Link href="/billing">Top up the wallet</Link>, then buy again.
              </p>
            )}
          </div>
        )}
        <div class="actions">
          <button type="submit" {...disabledProps('Buy pool', buyBlocked)}>
            {busy ? 'Buying…' : 'Buy pool'}
          </button>
          <DisabledReason label="Buy pool" reason={buyBlocked} />
        </div>
      </form>
    </div>
  );
}
