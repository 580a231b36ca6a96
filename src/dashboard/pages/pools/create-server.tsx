import { useState } from 'preact/hooks';
import { gql, HttpError } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import type { Plan, Resources, Template } from './pool-types.ts';
import { described } from './units.tsx';
import { graphql } from '../../graphql.ts';

const CREATE_MUTATION =
  graphql(`mutation($id: ID!, $productId: String!, $label: String!, $osTemplate: String!, $ipCount: Int) {
  poolServerCreate(id: $id, productId: $productId, label: $label, osTemplate: $osTemplate, ipCount: $ipCount) { id label status }
}`);

/** The OS family a server inside a pool runs (the API refuses the others). */
const POOL_OS = 'linux';
const LABEL_MAX = 64;
/** The API's most public addresses for one server. */
const MAX_IPS = 64;
const FIELDS = ['label', 'productId', 'osTemplate', 'ipCount'] as const;
type Field = (typeof FIELDS)[number];
type Errors = Partial<Record<Field | 'form', string>>;

/** What a plan needs that the pool no longer has free, in words; null when it fits. */
function shortfall(plan: Plan, free: Resources): string | null {
  const short = [
    plan.vcpu > free.vcpu && `${plan.vcpu} vCPU`,
    plan.ramMb > free.ramMb && `${plan.ramMb / 1024} GB RAM`,
    plan.diskGb > free.diskGb && `${plan.diskGb} GB disk`,
  ].filter(Boolean);
  return short.length ? `needs ${short.join(', ')}` : null;
}

/** Creating a server inside the pool: a plan that fits what is free, a Linux template, addresses from the block. */
export function PoolServerForm(props: {
  poolId: string;
  quota: Resources;
  usage: Resources;
  freeAddresses: number;
  plans: Plan[];
  templates: Template[];
  onCreated(): void;
}) {
  const free: Resources = {
    vcpu: props.quota.vcpu - props.usage.vcpu,
    ramMb: props.quota.ramMb - props.usage.ramMb,
    diskGb: props.quota.diskGb - props.usage.diskGb,
    ips: props.freeAddresses,
  };
  const templates = props.templates.filter((t) => t.os === POOL_OS);
  const fitting = props.plans.filter((p) => !shortfall(p, free));
  const [label, setLabel] = useState('');
  const [productId, setProductId] = useState('');
  const [template, setTemplate] = useState('');
  const [ips, setIps] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');

  // The choice stands while it fits; otherwise the first plan that does.
  const plan = fitting.find((p) => p.productId === productId) ?? fitting[0];
  const osTemplate = template || templates[0]?.id || '';
  const maxIps = Math.min(MAX_IPS, free.ips);
  const ipText = ips === '' ? String(Math.min(1, maxIps)) : ips;
  const blocked = busy
    ? 'The server is being created.'
    : !plan
      ? 'No plan fits in what the pool has free: resize the pool first.'
      : null;

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const found: Errors = {};
    const trimmed = label.trim();
    if (!trimmed) found.label = 'Give the server a label.';
    else if (trimmed.length > LABEL_MAX) found.label = `A label is at most ${LABEL_MAX} characters.`;
    const ipCount = Number(ipText);
    if (!/^\d+$/.test(ipText.trim())) found.ipCount = 'Enter a whole number of addresses.';
    else if (ipCount > maxIps) found.ipCount = `The pool has ${free.ips} free addresses.`;
    setErrors(found);
    if (Object.keys(found).length || !plan) return;
    setBusy(true);
    try {
      const { poolServerCreate: s } = await gql(CREATE_MUTATION, {
        id: props.poolId,
        productId: plan.productId,
        label: trimmed,
        osTemplate,
        ipCount,
      });
      setDone(`${s.label} is being created: it shows as provisioning below, then running.`);
      setLabel('');
      props.onCreated();
    } catch (err) {
      const { message } = err as Error;
      const field = err instanceof HttpError ? err.field : undefined;
      setErrors(field && (FIELDS as readonly string[]).includes(field) ? { [field]: message } : { form: message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card order" onSubmit={submit} noValidate aria-busy={busy} data-testid="pool-server-create">
      <h2>Create a server in the pool</h2>
      <p class="small muted">
        Free now: {free.vcpu} vCPU · {free.ramMb / 1024} GB RAM · {free.diskGb} GB disk · {free.ips} addresses. Servers
        in a pool cost nothing more.
      </p>
      <div class="fields">
        <label>
          Server label
          <input
            value={label}
            maxLength={LABEL_MAX + 16}
            autoComplete="off"
            onInput={(e) => setLabel(e.currentTarget.value)}
            {...described(errors.label, 'pool-server-label-error')}
          />
          {errors.label && (
            <span id="pool-server-label-error" class="error field-error">
              {errors.label}
            </span>
          )}
        </label>
        <label>
          Size
          <select
            onChange={(e) => setProductId(e.currentTarget.value)}
            {...described(errors.productId, 'pool-server-size-error', 'pool-server-size-hint')}
          >
            {!plan && (
              // Selected by attribute: a select's value cannot rest on a disabled option.
              <option value="" disabled selected>
                No plan fits what is free
              </option>
            )}
            {props.plans.map((p) => {
              const short = shortfall(p, free);
              return (
                <option
                  key={p.productId}
                  value={p.productId}
                  disabled={Boolean(short)}
                  selected={p.productId === plan?.productId}
                >
                  {p.name}
                  {short ? ` (does not fit: ${short})` : ''}
                </option>
              );
            })}
          </select>
          <span id="pool-server-size-hint" class="small muted">
            {fitting.length} of {props.plans.length} plans fit in what is free.
          </span>
          {errors.productId && (
            <span id="pool-server-size-error" class="error field-error">
              {errors.productId}
            </span>
          )}
        </label>
        <label>
          System
          <select
            value={osTemplate}
            onChange={(e) => setTemplate(e.currentTarget.value)}
            {...described(errors.osTemplate, 'pool-server-os-error')}
          >
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {errors.osTemplate && (
            <span id="pool-server-os-error" class="error field-error">
              {errors.osTemplate}
            </span>
          )}
        </label>
        <label>
          Public addresses
          <input
            type="number"
            inputMode="numeric"
            min={0}
            max={maxIps}
            value={ipText}
            onInput={(e) => setIps(e.currentTarget.value)}
            {...described(errors.ipCount, 'pool-server-ips-error', 'pool-server-ips-hint')}
          />
          <span id="pool-server-ips-hint" class="small muted">
            From the pool block, 0 to {maxIps}; 0 for a private-only server.
          </span>
          {errors.ipCount && (
            <span id="pool-server-ips-error" class="error field-error">
              {errors.ipCount}
            </span>
          )}
        </label>
      </div>
      {errors.form && (
        <p role="alert" class="error refusal">
          {errors.form}
        </p>
      )}
      <div class="actions">
        <button type="submit" {...disabledProps('Create server', blocked)}>
          {busy ? 'Creating…' : 'Create server'}
        </button>
        <DisabledReason label="Create server" reason={blocked} />
      </div>
      <p role="status" class="ok">
        {done}
      </p>
    </form>
  );
}
