import { useState } from 'preact/hooks';
import { gql, HttpError } from '../api.ts';
import { money } from '../format.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

/** What the wallet's auto-recharge is set to, as the billing page reads it. */
export const AUTO_RECHARGE = graphql(
  'fragment AutoRecharge on WalletAutoRecharge { enabled thresholdUsdCents amountUsdCents }',
);
type AutoRechargeState = ResultOf<typeof AUTO_RECHARGE>;

/** The wallet card's line: what auto-recharge does now. */
export function AutoRechargeSummary(props: { auto: AutoRechargeState }) {
  const { enabled, thresholdUsdCents, amountUsdCents } = props.auto;
  if (!enabled || thresholdUsdCents === null || amountUsdCents === null) return <>Off</>;
  return (
    <>
      On: {money(amountUsdCents)} by card when the balance falls below {money(thresholdUsdCents)}
    </>
  );
}

const dollars = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));

/** Dollars typed ("25", "$25.50") as cents; null when empty; NaN when not an amount. */
function centsOf(text: string): number | null {
  const t = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (t === '') return null;
  return /^\d+(\.\d{1,2})?$/.test(t) ? Math.round(Number(t) * 100) : Number.NaN;
}

const SET = graphql(
  `mutation($enabled: Boolean, $threshold: Int, $amount: Int) {
  walletAutoRechargeSet(enabled: $enabled, thresholdUsdCents: $threshold, amountUsdCents: $amount) {
    autoRecharge { ...AutoRecharge }
  }
}`,
  [AUTO_RECHARGE],
);

type Field = 'threshold' | 'amount';
/** The API names a value by its GraphQL or its REST name. */
const FIELD_OF: Record<string, Field> = {
  thresholdUsdCents: 'threshold',
  threshold_usd_cents: 'threshold',
  amountUsdCents: 'amount',
  amount_usd_cents: 'amount',
};

/**
 * Auto-recharge settings, inside the wallet card: on or off, the threshold and the amount
 * (walletAutoRechargeSet). The API judges the bounds; its refusal is shown beside the field.
 */
export function AutoRechargeSettings(props: { auto: AutoRechargeState; onSaved(): void }) {
  const [open, setOpen] = useState(false);
  const [enabled, setEnabled] = useState(props.auto.enabled);
  const [threshold, setThreshold] = useState(dollars(props.auto.thresholdUsdCents));
  const [amount, setAmount] = useState(dollars(props.auto.amountUsdCents));
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [status, setStatus] = useState<{ error: boolean; text: string }>({ error: false, text: '' });

  const start = () => {
    setEnabled(props.auto.enabled);
    setThreshold(dollars(props.auto.thresholdUsdCents));
    setAmount(dollars(props.auto.amountUsdCents));
    setErrors({});
    setStatus({ error: false, text: '' });
    setOpen(true);
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setStatus({ error: false, text: '' });
    const values = { threshold: centsOf(threshold), amount: centsOf(amount) };
    const typed: Partial<Record<Field, string>> = {};
    for (const f of ['threshold', 'amount'] as const)
      if (Number.isNaN(values[f])) typed[f] = 'Enter an amount in dollars, such as 25 or 25.50.';
    setErrors(typed);
    if (Object.keys(typed).length) return;
    setBusy(true);
    try {
      await gql(SET, { enabled, threshold: values.threshold, amount: values.amount });
      setOpen(false);
      setStatus({ error: false, text: 'Auto-recharge saved.' });
      props.onSaved();
    } catch (err) {
      const field = err instanceof HttpError && err.field ? FIELD_OF[err.field] : undefined;
      if (field) setErrors({ [field]: (err as Error).message });
      else setStatus({ error: true, text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const input = (field: Field, label: string, value: string, set: (v: string) => void, hint: string) => (
    <label>
      {label}
      <input
        name={field}
        inputMode="decimal"
        autocomplete="off"
        value={value}
        aria-invalid={errors[field] ? 'true' : undefined}
        aria-describedby={`auto-recharge-${field}-${errors[field] ? 'error' : 'hint'}`}
        onInput={(e) => set(e.currentTarget.value)}
      />
      {errors[field] ? (
        <span id={`auto-recharge-${field}-error`} class="error field-error">
          {errors[field]}
        </span>
      ) : (
        <span id={`auto-recharge-${field}-hint`} class="muted small">
          {hint}
        </span>
      )}
    </label>
  );

  return (
    <div class="auto-recharge">
      {!open ? (
        <button type="button" class="secondary" onClick={start}>
          Change auto-recharge
        </button>
      ) : (
        <form onSubmit={save} aria-busy={busy} noValidate data-testid="auto-recharge">
          <h3>Auto-recharge</h3>
          <label class="check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
            Recharge by card when the balance runs low
          </label>
          <div class="fields">
            {input('threshold', 'When the balance falls below (USD)', threshold, setThreshold, 'Up to $10,000.')}
            {input('amount', 'Top up by (USD)', amount, setAmount, 'From $5 to $10,000.')}
          </div>
          <div class="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <p role="status" class={status.error ? 'error' : 'ok'}>
        {status.text}
      </p>
    </div>
  );
}
