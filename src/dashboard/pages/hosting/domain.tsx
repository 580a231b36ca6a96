import { useState } from 'preact/hooks';
import { gql, HttpError } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Copyable } from '../../copy.tsx';
import { graphql } from '../../graphql.ts';

const DOMAIN_QUERY = graphql(
  'query($id: ID!) { hostingAccount(id: $id) { id domain customDomain { domain status attachedAt } connection { ip host } } }',
);
const SET_MUTATION = graphql(
  'mutation($id: ID!, $domain: String!) { hostingCustomDomainSet(id: $id, domain: $domain) { id customDomain { domain status } } }',
);
const VERIFY_MUTATION = graphql(
  'mutation($id: ID!) { hostingCustomDomainVerify(id: $id) { id customDomain { domain status attachedAt } } }',
);
const DELETE_MUTATION = graphql('mutation($id: ID!) { hostingCustomDomainDelete(id: $id) { id } }');

/** The ownership proof a refusal asks for: `publish the TXT record "<value>" at <name>`. */
function ownershipProof(message: string): { value: string; name: string } | null {
  const m = /TXT record "([^"]+)" at ([^\s,)]+?)[\s,)]/.exec(message);
  return m ? { value: m[1], name: m[2] } : null;
}

/** The records that point a custom domain here: one of them is enough. */
function DnsRecords(props: { domain: string; ip: string; host: string }) {
  return (
    <div class="table-wrap">
      <table data-testid="dns-records">
        <caption class="small muted">Create one of these records at your DNS provider</caption>
        <thead>
          <tr>
            <th>Type</th>
            <th>Name</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>A</td>
            <td class="mono">{props.domain}</td>
            <td>
              <Copyable value={props.ip} what="A record value" />
            </td>
          </tr>
          <tr>
            <td>CNAME</td>
            <td class="mono">{props.domain}</td>
            <td>
              <Copyable value={props.host} what="CNAME record value" />
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** Domain tab: the site's custom domain — set it (with the ownership TXT when asked), point DNS, verify, remove. */
export function DomainPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(DOMAIN_QUERY, ['hosting.'], { id: props.id }, reload);
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [proof, setProof] = useState<{ value: string; name: string } | null>(null);
  const [busy, setBusy] = useState<'set' | 'verify' | 'remove' | null>(null);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const refresh = () => setReload((n) => n + 1);

  if (state.error)
    return (
      <section class="card">
        <h2>Custom domain</h2>
        <p class="error">{state.error}</p>
      </section>
    );
  const h = state.data?.hostingAccount;
  if (!h)
    return (
      <section class="card" aria-busy="true">
        <h2>Custom domain</h2>
        <p class="muted">Loading…</p>
      </section>
    );

  const set = async (e: Event) => {
    e.preventDefault();
    const domain = input.trim().toLowerCase();
    setResult(null);
    setProof(null);
    if (!domain) return setError('Type a domain name, such as shop.example.com.');
    setError(undefined);
    setBusy('set');
    try {
      await gql(SET_MUTATION, { id: props.id, domain });
      setInput('');
      refresh();
    } catch (err) {
      const { message } = err as Error;
      const asked = ownershipProof(message);
      setProof(asked);
      // The proof asked for is set out below the form, ready to copy; the field says only why.
      if (asked) setError(`${domain} is not registered in this account: prove that you control it first (below).`);
      else
        setError(
          err instanceof HttpError && err.field && err.field !== 'domain' ? `${err.field}: ${message}` : message,
        );
    }
    setBusy(null);
  };

  const verify = async () => {
    setBusy('verify');
    setResult(null);
    try {
      const { hostingCustomDomainVerify } = await gql(VERIFY_MUTATION, { id: props.id });
      const d = hostingCustomDomainVerify.customDomain;
      setResult({ ok: true, message: `${d?.domain ?? 'The domain'} points here: it is ${d?.status ?? 'attached'}.` });
      refresh();
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setBusy(null);
  };

  const remove = async () => {
    setBusy('remove');
    setResult(null);
    try {
      await gql(DELETE_MUTATION, { id: props.id });
      refresh();
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setBusy(null);
  };

  const custom = h.customDomain;
  return (
    <section class="card" data-testid="hosting-domain" aria-busy={busy !== null}>
      <h2>Custom domain</h2>
      {custom ? (
        <>
          <dl class="facts">
            <dt>Domain</dt>
            <dd class="mono" data-testid="custom-domain">
              {custom.domain}
            </dd>
            <dt>Status</dt>
            <dd data-testid="custom-domain-status">
              <StatusBadge status={custom.status} />
            </dd>
            <dt>Attached</dt>
            <dd>
              <When at={custom.attachedAt} none="not yet" />
            </dd>
          </dl>
          {custom.status !== 'attached' && (
            <p>
              The site answers on {custom.domain} once its DNS points here. Then press Verify; DNS changes can take a
              while to be visible.
            </p>
          )}
          <DnsRecords domain={custom.domain} ip={h.connection.ip} host={h.connection.host} />
          <div class="actions">
            <button type="button" onClick={() => void verify()} disabled={busy !== null}>
              {busy === 'verify' ? 'Verifying…' : 'Verify'}
            </button>
            <ConfirmButton
              label={busy === 'remove' ? 'Removing…' : 'Remove custom domain'}
              question={`Remove ${custom.domain}?`}
              detail={`The site stops answering on ${custom.domain} and stays on ${h.domain}. The certificate covers ${h.domain} only.`}
              confirmLabel="Remove"
              disabledReason={busy !== null ? 'Wait for the current action to finish.' : null}
              onConfirm={remove}
            />
          </div>
          {result && (
            <p
              role={result.ok ? 'status' : 'alert'}
              class={result.ok ? 'ok' : 'error refusal'}
              data-testid="verify-result"
            >
              {result.message}
            </p>
          )}
        </>
      ) : (
        <>
          <p class="muted">No custom domain: the site answers on {h.domain} only.</p>
          <form class="inline" onSubmit={set} noValidate aria-busy={busy === 'set'}>
            <label class="grow">
              Custom domain
              <input
                value={input}
                autoComplete="off"
                placeholder="shop.example.com"
                onInput={(e) => setInput((e.target as HTMLInputElement).value)}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? 'custom-domain-error' : undefined}
              />
            </label>
            <button type="submit" disabled={busy !== null}>
              {busy === 'set' ? 'Setting…' : 'Set custom domain'}
            </button>
            {error && (
              <p id="custom-domain-error" class="error field-error">
                {error}
              </p>
            )}
          </form>
          {proof && (
            <div class="notice proof" data-testid="ownership-txt">
              <p>
                Prove that you control <strong class="mono">{proof.name}</strong>: create this TXT record at{' '}
                <span class="mono">{proof.name}</span>, then set the domain again.
              </p>
              <p>
                <Copyable value={proof.value} what="TXT record value" />
              </p>
            </div>
          )}
          <p class="small muted">
            Then point it here: an A record to <span class="mono">{h.connection.ip}</span> or a CNAME to{' '}
            <span class="mono">{h.connection.host}</span>.
          </p>
        </>
      )}
    </section>
  );
}
