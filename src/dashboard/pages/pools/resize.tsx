import { useRef, useState } from 'preact/hooks';
import { isMoneyRefusal } from '../../wallet-cover.tsx';
import { gql, HttpError } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import { money, When } from '../../format.tsx';
import { Link } from '../../router.tsx';
import { type Bounds, sameUnits, UNITS, type Units, UnitSliders, useQuote } from './units.tsx';
import { graphql } from '../../graphql.ts';

const QUOTE_QUERY = graphql(`query($id: ID!, $vcpu: Int!, $ram2gb: Int!, $disk100: Int!, $ip16: Int!) {
  poolResizeQuote(id: $id, vcpu: $vcpu, ram2gb: $ram2gb, disk100: $disk100, ip16: $ip16) {
    monthlyUsdCents currentMonthlyUsdCents differenceUsdCents chargeNowUsdCents daysLeft cycleDays renewsAt
  }
}`);

const RESIZE_MUTATION = graphql(`mutation($id: ID!, $vcpu: Int!, $ram2gb: Int!, $disk100: Int!, $ip16: Int!) {
  poolResize(id: $id, vcpu: $vcpu, ram2gb: $ram2gb, disk100: $disk100, ip16: $ip16) { id }
}`);

/** "+$4.00" or "−$3.00": a change of the monthly price. */
const signed = (cents: number) => (cents < 0 ? `−${money(-cents)}` : `+${money(cents)}`);

/**
 * Resizing to a new shape: the sliders start at the pool's shape, the quote (new monthly price
 * and the prorated charge now) is read as they move, and the resize asks to confirm that price.
 * A shape the API refuses (below what the servers hold) shows its reason and cannot be sent.
 */
export function ResizePool(props: {
  poolId: string;
  current: Units;
  bounds: Bounds | null;
  monthlyUsdCents: number;
  onResized(): void;
}) {
  const [units, setUnits] = useState<Units>(props.current);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<HttpError | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const changed = !sameUnits(units, props.current);
  const state = useQuote(QUOTE_QUERY, changed ? { id: props.poolId, ...units } : null);
  const quote = state.quote?.poolResizeQuote;

  if (!props.bounds)
    return (
      <section class="card" data-testid="pool-resize">
        <h2>Resize</h2>
        <p class="muted">This pool's product is no longer offered, so the pool cannot be resized.</p>
      </section>
    );

  const refusal = error ?? state.error;
  const fieldErrors =
    refusal?.field && (UNITS as string[]).includes(refusal.field) ? { [refusal.field]: refusal.message } : {};
  const blocked = busy
    ? 'The pool is being resized.'
    : !changed
      ? 'Move a slider to choose a new size first.'
      : state.error && !state.pending
        ? 'This size cannot be had; see the reason above.'
        : state.pending || !quote
          ? 'Waiting for the price of this size.'
          : null;

  const resize = async () => {
    dialog.current?.close();
    setError(null);
    setBusy(true);
    try {
      await gql(RESIZE_MUTATION, { id: props.poolId, ...units });
      props.onResized();
    } catch (err) {
      setError(err instanceof HttpError ? err : new HttpError(0, (err as Error).message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card order" data-testid="pool-resize" aria-busy={busy}>
      <h2>Resize</h2>
      <p class="small muted">
        Growth is charged now for the days left until the renewal; a smaller size lowers the price from the renewal and
        is not refunded.
      </p>
      <UnitSliders
        idPrefix="resize"
        units={units}
        bounds={props.bounds}
        errors={fieldErrors}
        disabled={busy}
        onChange={(u) => {
          setError(null);
          setUnits(u);
        }}
      />
      <div class="price" data-testid="resize-quote" aria-live="polite" aria-busy={state.pending}>
        {!changed ? (
          <p class="muted">Now {money(props.monthlyUsdCents)} per month. Move a slider to price a new size.</p>
        ) : state.pending ? (
          <p class="muted">Pricing…</p>
        ) : state.error && !state.error.field ? (
          <p class="error">{state.error.message}</p>
        ) : quote ? (
          <>
            <p>
              <strong>
                {money(quote.monthlyUsdCents)} per month from <When at={quote.renewsAt} />
              </strong>{' '}
              ({signed(quote.differenceUsdCents)} on {money(quote.currentMonthlyUsdCents)})
            </p>
            <p data-testid="resize-charge-now">
              Charged now: {money(quote.chargeNowUsdCents)}
              {quote.chargeNowUsdCents > 0 && `, the growth for the ${quote.daysLeft} of ${quote.cycleDays} days left`}.
            </p>
          </>
        ) : null}
      </div>
      {error && !error.field && (
        <p role="alert" class="error refusal">
          {error.message} {isMoneyRefusal(error.message) && <Link href="/billing">Top up the wallet</Link>}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={() => dialog.current?.showModal()} {...disabledProps('Resize pool', blocked)}>
          {busy ? 'Resizing…' : 'Resize pool'}
        </button>
        <DisabledReason label="Resize pool" reason={blocked} />
        <button type="button" class="secondary" disabled={!changed || busy} onClick={() => setUnits(props.current)}>
          Reset
        </button>
      </div>
      <dialog ref={dialog} class="confirm" aria-labelledby="resize-confirm-title">
        <h2 id="resize-confirm-title">Resize the pool?</h2>
        {quote && (
          <p>
            {money(quote.chargeNowUsdCents)} is charged from your wallet now; the pool then costs{' '}
            {money(quote.monthlyUsdCents)} a month.
          </p>
        )}
        <div class="actions">
          <button type="button" class="secondary" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" onClick={resize}>
            Resize and pay {quote ? money(quote.chargeNowUsdCents) : ''}
          </button>
        </div>
      </dialog>
    </section>
  );
}
