import { useEffect, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { type SectionProps, type ServerDetail, whyNot } from './shared.tsx';
import { graphql } from '../../graphql.ts';

const SET = graphql(
  `mutation($id: ID!, $ip: String!, $hostname: String!) { serverPtrSet(id: $id, ip: $ip, hostname: $hostname) { ip ptr } }`,
);
const CLEAR = graphql(`mutation($id: ID!, $ip: String!) { serverPtrDelete(id: $id, ip: $ip) { ip ptr } }`);

type Ip = ServerDetail['ips'][number];

const slug = (ip: string) => ip.replace(/\W/g, '-');

/** One address with its PTR record, edited in place: Save sets it, Clear removes it; a refusal shows beside the input. */
function AddressRow(props: { serverId: string; ip: Ip; why: string | null; onChanged(): void }) {
  const { ip } = props;
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState<'save' | 'clear' | null>(null);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  // A change read from the server (made here or elsewhere) replaces what was typed.
  // A live refresh drops the edit once the record holds it, never a name still being typed.
  useEffect(() => setValue((typed) => (typed === ip.ptr ? null : typed)), [ip.ptr]);
  const shown = value ?? ip.ptr ?? '';
  const errorId = `ptr-error-${slug(ip.ip)}`;
  const hintId = `ptr-hint-${slug(ip.ip)}`;
  const notHosted = ip.zoneHosted
    ? null
    : 'The reverse zone of this address is not hosted here: its PTR cannot be managed.';

  // Why the record cannot be changed at all: the credential (the API's rule), or the zone.
  const off = props.why ?? notHosted;
  const clearWhyId = `ptr-clear-why-${slug(ip.ip)}`;
  const clearWhy = !ip.ptr && !off ? 'No PTR record is set.' : null;

  const send = async (kind: 'save' | 'clear') => {
    if (kind === 'save' && !shown.trim()) {
      setError('Type a host name such as mail.example.com, or Clear to remove the record.');
      return;
    }
    setBusy(kind);
    setError('');
    setDone('');
    try {
      // The record as the API stored it (a name is normalised), shown until the page reads the server again.
      if (kind === 'save') {
        const r = await gql(SET, {
          id: props.serverId,
          ip: ip.ip,
          hostname: shown.trim(),
        });
        setValue(r.serverPtrSet.ptr ?? '');
      } else {
        await gql(CLEAR, { id: props.serverId, ip: ip.ip });
        setValue('');
      }
      setDone(kind === 'save' ? 'Saved.' : 'Cleared.');
      props.onChanged();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <tr data-testid={`ip-${ip.ip}`}>
      <td data-label="Address" class="mono">
        <span>
          {ip.ip}
          {ip.primary && <span class="small muted"> (primary)</span>}
        </span>
      </td>
      <td data-label="PTR">
        <div>
          <form
            class="ptr"
            aria-busy={busy !== null}
            onSubmit={(e) => {
              e.preventDefault();
              void send('save');
            }}
            noValidate
          >
            <input
              value={shown}
              aria-label={`Reverse DNS of ${ip.ip}`}
              placeholder="mail.example.com"
              autoComplete="off"
              disabled={!!off}
              onInput={(e) => {
                setValue(e.currentTarget.value);
                setDone('');
              }}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={[error ? errorId : '', off ? hintId : ''].filter(Boolean).join(' ') || undefined}
            />
            <button
              type="submit"
              class="secondary"
              disabled={busy !== null || !!off}
              title={off ?? undefined}
              aria-describedby={off ? hintId : undefined}
            >
              {busy === 'save' ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy !== null || !!off || !ip.ptr}
              title={off ?? clearWhy ?? undefined}
              aria-describedby={off ? hintId : clearWhy ? clearWhyId : undefined}
              onClick={() => send('clear')}
            >
              {busy === 'clear' ? 'Clearing…' : 'Clear'}
            </button>
            {clearWhy && (
              <span id={clearWhyId} class="visually-hidden">
                {clearWhy}
              </span>
            )}
          </form>
          {off && (
            <span id={hintId} class="small muted">
              {off}
            </span>
          )}
          {error && (
            <span id={errorId} class="error field-error">
              {error}
            </span>
          )}
          <span role="status" class="ok small">
            {done}
          </span>
        </div>
      </td>
    </tr>
  );
}

/** The server's addresses and their reverse DNS (PTR) records. */
export function Addresses({ server: s, onChanged }: SectionProps) {
  return (
    <section class="card" data-testid="addresses">
      <h2>Addresses and reverse DNS</h2>
      {s.ips.length === 0 ? (
        <p class="muted">No addresses yet: they are assigned when the server is provisioned.</p>
      ) : (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Reverse DNS (PTR)</th>
            </tr>
          </thead>
          <tbody>
            {s.ips.map((ip) => (
              <AddressRow key={ip.ip} serverId={s.id} ip={ip} why={whyNot(s, 'ptr')} onChanged={onChanged} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
