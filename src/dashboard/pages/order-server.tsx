import { useState } from 'preact/hooks';
import { isMoneyRefusal, WalletCover } from '../wallet-cover.tsx';
import { gql, HttpError } from '../api.ts';
import { useLive } from '../live-query.tsx';
import { Link, navigate } from '../router.tsx';
import { money } from '../format.tsx';
import { SshKeyPicker } from '../ssh-key-picker.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

const CATALOGUE_QUERY = graphql(
  '{ serverCatalogue { plans { productId family name vcpu ramMb diskGb monthlyUsdCents } osTemplates { id os name } } wallet { balanceUsdCents } }',
);
type Plan = ResultOf<typeof CATALOGUE_QUERY>['serverCatalogue']['plans'][number];

const ORDER_MUTATION =
  graphql(`mutation($productId: String!, $label: String!, $osTemplate: String!, $sshKeyIds: [ID!]) {
  serverOrder(productId: $productId, label: $label, osTemplate: $osTemplate, sshKeyIds: $sshKeyIds) { server { id status } chargedUsdCents }
}`);

/** Errors by the input they concern; `form` is one that concerns the order as a whole (the wallet, say). */
type Errors = { label?: string; productId?: string; osTemplate?: string; sshKeyIds?: string; form?: string };

const LABEL_MAX = 64;

/** The checks the API makes too, made first so an obvious slip costs no round trip. */
function check(label: string, plan: Plan | undefined): Errors {
  const errors: Errors = {};
  const trimmed = label.trim();
  if (!trimmed) errors.label = 'Give the server a label.';
  else if (trimmed.length > LABEL_MAX) errors.label = `A label is at most ${LABEL_MAX} characters.`;
  if (!plan) errors.productId = 'Choose a plan.';
  return errors;
}

/** The attributes that tie an input to its error (and hint) for assistive tech. */
function described(error: string | undefined, errorId: string, hintId?: string) {
  const ids = [hintId, error ? errorId : undefined].filter(Boolean).join(' ');
  return { 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': ids || undefined };
}

const specs = (p: Plan) => `${p.vcpu} vCPU · ${p.ramMb / 1024} GB RAM · ${p.diskGb} GB disk`;

/** /servers/new: order a standalone server, its first month paid from the wallet at once. */
export function OrderServer() {
  // The wallet changes elsewhere too (a deposit in another tab): the balance shown stays current.
  const state = useLive(CATALOGUE_QUERY, ['wallet.', 'invoice.']);
  const [productId, setProductId] = useState('');
  const [template, setTemplate] = useState('');
  const [label, setLabel] = useState('');
  const [sshKeyIds, setSshKeyIds] = useState<string[]>([]);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  if (state.error)
    return (
      <section class="card">
        <h1>Order a server</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  if (!state.data) return <p class="muted">Loading…</p>;
  const { plans, osTemplates } = state.data.serverCatalogue;
  const balance = state.data.wallet.balanceUsdCents;
  const plan = plans.find((p) => p.productId === productId);
  const osTemplate = template || osTemplates[0]?.id || '';
  const os = osTemplates.find((t) => t.id === osTemplate)?.os;

  const submit = async (e: Event) => {
    e.preventDefault();
    const found = check(label, plan);
    setErrors(found);
    if (found.label || found.productId || !plan) return;
    setBusy(true);
    try {
      const { serverOrder } = await gql(ORDER_MUTATION, {
        productId: plan.productId,
        label: label.trim(),
        osTemplate,
        sshKeyIds: os === 'windows' ? [] : sshKeyIds,
      });
      navigate(`/servers/${serverOrder.server.id}`);
    } catch (err) {
      const { message } = err as Error;
      const field = err instanceof HttpError ? err.field : undefined;
      setErrors(
        field === 'label' || field === 'productId' || field === 'osTemplate' || field === 'sshKeyIds'
          ? { [field]: message }
          : { form: message },
      );
      setBusy(false);
    }
  };

  const short = plan !== undefined && plan.monthlyUsdCents > balance;
  return (
    <div>
      <p>
        <Link href="/servers">← Servers</Link>
      </p>
      <h1>Order a server</h1>
      <form class="card order" onSubmit={submit} noValidate aria-busy={busy}>
        <fieldset class="plans" aria-describedby={errors.productId ? 'plan-error' : undefined}>
          <legend>Plan</legend>
          <div class="plan-grid">
            {plans.map((p) => (
              <label key={p.productId} class={`plan-card${p.productId === productId ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="plan"
                  value={p.productId}
                  checked={p.productId === productId}
                  onChange={() => setProductId(p.productId)}
                  {...described(errors.productId, 'plan-error')}
                />
                <span class="plan-name">{p.name}</span>
                <span class="small">{specs(p)}</span>
                <span class="plan-price">{money(p.monthlyUsdCents)} per month</span>
              </label>
            ))}
          </div>
          {errors.productId && (
            <p id="plan-error" class="error field-error">
              {errors.productId}
            </p>
          )}
        </fieldset>
        <label>
          Operating system
          <select value={osTemplate} onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)}>
            {osTemplates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        {errors.osTemplate && <p class="error field-error">{errors.osTemplate}</p>}
        <SshKeyPicker idPrefix="order" chosen={sshKeyIds} onChange={setSshKeyIds} os={os} error={errors.sshKeyIds} />
        <label>
          Label
          <input
            value={label}
            maxLength={LABEL_MAX + 16}
            autoComplete="off"
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
            {...described(errors.label, 'label-error', 'label-hint')}
          />
        </label>
        <p id="label-hint" class="small muted hint">
          1–{LABEL_MAX} letters, digits, dots, hyphens or underscores (it is also the server's host name), e.g. web-2.
        </p>
        {errors.label && (
          <p id="label-error" class="error field-error">
            {errors.label}
          </p>
        )}
        <div class="price" data-testid="order-price" aria-live="polite">
          <p>
            {plan ? (
              <strong>{money(plan.monthlyUsdCents)} per month, the first month charged from your wallet now.</strong>
            ) : (
              'Choose a plan to see its price.'
            )}
          </p>
          <WalletCover balance={balance} short={short} />
        </div>
        {errors.form && (
          <div role="alert" class="error refusal">
            <p>{errors.form}</p>
            {isMoneyRefusal(errors.form) && (
              <p>
                <Link href="/billing">Top up the wallet</Link>, then order again.
              </p>
            )}
          </div>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Ordering…' : 'Order server'}
          </button>
        </div>
      </form>
    </div>
  );
}
