import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { money, formatUtc } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { DialogButton, type SectionProps, useRun, whyNot } from './shared.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const OPTIONS = graphql(
  `query($id: ID!) { serverPlanOptions(id: $id) { nodes { productId name vcpu ramMb diskGb monthlyUsdCents current } } }`,
);
type PlanOption = ResultOf<typeof OPTIONS>['serverPlanOptions']['nodes'][number];
const CHANGE = graphql(
  `mutation($id: ID!, $productId: String!) { serverChangePlan(id: $id, productId: $productId) { id status productId } }`,
);

const specs = (p: PlanOption) => `${p.vcpu} vCPU · ${p.ramMb / 1024} GB RAM · ${p.diskGb} GB disk`;

/** "+$6.00" or "−$6.00" a month. */
const difference = (cents: number) => (cents < 0 ? `−${money(-cents)}` : `+${money(cents)}`);

/** The plan: a server inside a pool has none of its own (the API's reason); a standalone one may switch. */
export function Plan(props: SectionProps) {
  const { server: s } = props;
  if (s.pool)
    return (
      <section class="card" data-testid="plan">
        <h2>Plan</h2>
        <p class="muted">{whyNot(s, 'changePlan')}</p>
      </section>
    );
  return <PlanOptions {...props} />;
}

/** The plan options (same family and disk) with their prices, and the switch, confirmed with the price difference. */
function PlanOptions({ server: s, onChanged }: SectionProps) {
  const [reload, setReload] = useState(0);
  const state = useLive(OPTIONS, ['server.resized'], { id: s.id }, reload);
  const [chosen, setChosen] = useState('');
  const [done, setDone] = useState('');
  const { busy, error, run } = useRun();
  const why = whyNot(s, 'changePlan');

  const options = state.data?.serverPlanOptions.nodes ?? [];
  const current = options.find((p) => p.current);
  const target = options.find((p) => p.productId === chosen && !p.current);
  const change = async () => {
    if (!target) return;
    setDone('');
    if (await run('change', () => gql(CHANGE, { id: s.id, productId: target.productId }))) {
      setDone(`Changing to ${target.name}: the server reboots, about a minute.`);
      setChosen('');
    }
    setReload((n) => n + 1);
    onChanged();
  };

  return (
    <section class="card" data-testid="plan">
      <h2>Plan</h2>
      {state.error ? (
        <p class="muted">{state.error}</p>
      ) : !state.data ? (
        <p class="muted">Loading…</p>
      ) : options.length <= 1 ? (
        <p class="muted">No other plan of this family has the same disk: there is nothing to switch to.</p>
      ) : (
        <>
          <fieldset class="plans">
            <legend>Plans this server can switch to (same disk, the server reboots)</legend>
            <div class="plan-grid">
              {options.map((p) => (
                <label
                  key={p.productId}
                  class={`plan-card${p.productId === chosen || (!chosen && p.current) ? ' selected' : ''}`}
                >
                  <input
                    type="radio"
                    name="plan"
                    value={p.productId}
                    checked={p.productId === chosen || (!chosen && p.current)}
                    onChange={() => setChosen(p.productId)}
                  />
                  <span class="plan-name">
                    {p.name}
                    {p.current && <span class="small muted"> (current)</span>}
                  </span>
                  <span class="small">{specs(p)}</span>
                  <span class="plan-price">{money(p.monthlyUsdCents)} per month</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div class="actions">
            <DialogButton
              id="change-plan"
              label="Change plan"
              title={target ? `Change ${s.label} to ${target.name}?` : 'Change plan?'}
              confirmLabel="Change plan"
              busy={busy === 'change'}
              disabledReason={why ?? (target ? null : 'Choose a plan other than the current one.')}
              onConfirm={change}
            >
              {target && current && (
                <div data-testid="plan-difference">
                  <p>
                    {money(current.monthlyUsdCents)} → {money(target.monthlyUsdCents)} per month:{' '}
                    <strong>{difference(target.monthlyUsdCents - current.monthlyUsdCents)} a month</strong>, billed from
                    the next renewal{s.renewsAt ? ` (${formatUtc(s.renewsAt)})` : ''}. Nothing is charged now.
                  </p>
                  <p>
                    {specs(current)} → {specs(target)}. The server reboots (about a minute); the disk is unchanged.
                  </p>
                </div>
              )}
            </DialogButton>
          </div>
        </>
      )}
      {error && <p class="error">{error.message}</p>}
      <p role="status" class="ok">
        {done}
      </p>
    </section>
  );
}
