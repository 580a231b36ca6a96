import { useEffect, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import { Field, useFormRequest } from '../../field.tsx';
import { formatUtc, StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Link, BackLink, PageFailed } from '../../router.tsx';
import { DOMAIN_ROW, type DomainRow } from './list.tsx';
import { graphql } from '../../graphql.ts';

type Setting = 'autoRenew' | 'transferLock' | 'whoisPrivacy';

/** The on/off settings of a domain, each saved as soon as it is switched. */
const SWITCHES: [Setting, string, string][] = [
  ['autoRenew', 'Renew automatically', 'Renewed before it expires, so the name is never lost.'],
  ['transferLock', 'Transfer lock', 'Refuses transfers of the domain to another registrar.'],
  ['whoisPrivacy', 'WHOIS privacy', 'The WHOIS record shows a privacy service instead of your contact details.'],
];

const UPDATE_MUTATION = graphql(
  `mutation($id: ID!, $autoRenew: Boolean, $transferLock: Boolean, $whoisPrivacy: Boolean, $nameservers: [String!]) {
  domainUpdate(id: $id, autoRenew: $autoRenew, transferLock: $transferLock, whoisPrivacy: $whoisPrivacy, nameservers: $nameservers) { ...DomainRow }
}`,
  [DOMAIN_ROW],
);
const DOMAIN_QUERY = graphql('query($id: ID!) { domain(id: $id) { ...DomainRow } }', [DOMAIN_ROW]);

/** What happens at the end of the registration, in words. */
function Renewal(props: { d: DomainRow }) {
  const { d } = props;
  if (d.status !== 'active' || !d.expiresAt)
    return (
      <p data-testid="renewal">
        Not registered yet: its registration invoice is open. It registers once the invoice is paid on{' '}
        <Link href="/billing">Billing</Link>.
      </p>
    );
  const date = formatUtc(d.expiresAt).slice(0, 10);
  return (
    <p data-testid="renewal">
      {d.autoRenew
        ? `Renews automatically before its registration ends on ${date}.`
        : `Its registration ends on ${date} and is not renewed: turn on automatic renewal to keep the name.`}
    </p>
  );
}

function Switches(props: { d: DomainRow; notRegistered: string | null; onSaved(d: DomainRow): void }) {
  // The switch shows what was asked while it is saved; a refusal puts it back.
  const [asked, setAsked] = useState<{ setting: Setting; on: boolean } | null>(null);
  const busy = asked !== null;
  const [message, setMessage] = useState<{ text: string; error?: boolean }>({ text: '' });
  const save = async (setting: Setting, label: string, on: boolean) => {
    setAsked({ setting, on });
    setMessage({ text: `Saving ${label.toLowerCase()}…` });
    try {
      const r = await gql(UPDATE_MUTATION, { id: props.d.id, [setting]: on });
      props.onSaved(r.domainUpdate);
      setMessage({ text: `${label}: ${on ? 'on' : 'off'}.` });
    } catch (err) {
      setMessage({ text: (err as Error).message, error: true });
    } finally {
      setAsked(null);
    }
  };
  return (
    <>
      {SWITCHES.map(([setting, label, hint]) => {
        const why = props.notRegistered ?? (busy ? 'Saving a change…' : null);
        const disabled = disabledProps(label, why);
        const reasonId = 'aria-describedby' in disabled ? disabled['aria-describedby'] : '';
        return (
          <div class="field" key={setting}>
            <label class="switch">
              <input
                type="checkbox"
                checked={asked?.setting === setting ? asked.on : props.d[setting]}
                onChange={(e) => save(setting, label, e.currentTarget.checked)}
                {...disabled}
                aria-describedby={`${setting}-hint ${reasonId}`.trim()}
              />
              {label}
            </label>
            <span id={`${setting}-hint`} class="muted small hint">
              {hint}
            </span>
            <DisabledReason label={label} reason={why} />
          </div>
        );
      })}
      <p role="status" class={message.error ? 'error' : 'ok'}>
        {message.text}
      </p>
    </>
  );
}

/** The nameservers, one per line; the API checks them (2 to 13 distinct host names). */
function Nameservers(props: { d: DomainRow; notRegistered: string | null; onSaved(d: DomainRow): void }) {
  const [text, setText] = useState(props.d.nameservers.join('\n'));
  const { errors, busy, send } = useFormRequest(['nameservers']);
  const [done, setDone] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    setDone('');
    return send(async () => {
      const nameservers = text
        .split(/[\s,]+/)
        .map((n) => n.trim())
        .filter(Boolean);
      const r = await gql(UPDATE_MUTATION, { id: props.d.id, nameservers });
      setText(r.domainUpdate.nameservers.join('\n'));
      setDone('Nameservers saved.');
      props.onSaved(r.domainUpdate);
    });
  };
  const why = props.notRegistered ?? (busy ? 'Saving…' : null);
  return (
    <form class="card" onSubmit={submit} noValidate aria-busy={busy} data-testid="nameservers">
      <h2>Nameservers</h2>
      <Field label="Nameservers" id="nameservers" error={errors.nameservers} hint="One host name a line, 2 to 13.">
        {(a) => (
          <textarea
            {...a}
            rows={Math.max(3, text.split('\n').length + 1)}
            spellcheck={false}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" {...disabledProps('Save nameservers', why)}>
        {busy ? 'Saving…' : 'Save nameservers'}
      </button>
      <DisabledReason label="Save nameservers" reason={why} />
      <p role="status" class={errors.form ? 'error' : 'ok'}>
        {errors.form ?? done}
      </p>
    </form>
  );
}

/** /domains/:id: a domain's registration, its renewal and its registrar settings. */
export function DomainPage(props: { id: string }) {
  // A save answers the domain as it now is: shown at once, before any re-read.
  // Then it is read again, and that answer (or a live one) takes over.
  const [saved, setSaved] = useState<DomainRow | null>(null);
  const [reload, setReload] = useState(0);
  const state = useLive(DOMAIN_QUERY, ['domain.', 'invoice.'], { id: props.id }, reload);
  useEffect(() => setSaved(null), [state.data]);
  const onSaved = (d: DomainRow) => {
    setSaved(d);
    setReload((n) => n + 1);
  };
  const back = <BackLink href="/domains" label="Domains" />;
  if (state.error) return <PageFailed back={back} title="Domain" error={state.error} />;
  const d = saved?.id === props.id ? saved : state.data?.domain;
  if (!d) return <p class="muted">Loading…</p>;
  const notRegistered =
    d.status === 'active' ? null : 'The domain is not registered yet: its invoice is open (see Billing).';
  return (
    <div>
      {back}
      <h1>
        {d.domain} <StatusBadge status={d.status} />
      </h1>
      <div class="pair">
        <section class="card" data-testid="registration">
          <h2>Registration</h2>
          <dl class="facts">
            <dt>Registered</dt>
            <dd>
              <When at={d.registeredAt} none="not yet" />
            </dd>
            <dt>Expires</dt>
            <dd>
              <When at={d.expiresAt} none="once registered" />
            </dd>
            <dt>Period</dt>
            <dd>
              {d.periodYears} year{d.periodYears === 1 ? '' : 's'}
            </dd>
            <dt>Ordered</dt>
            <dd>
              <When at={d.createdAt} />
            </dd>
          </dl>
          <Renewal d={d} />
        </section>
        <section class="card" data-testid="settings">
          <h2>Settings</h2>
          <Switches d={d} notRegistered={notRegistered} onSaved={onSaved} />
        </section>
      </div>
      <Nameservers key={d.id} d={d} notRegistered={notRegistered} onSaved={onSaved} />
    </div>
  );
}
