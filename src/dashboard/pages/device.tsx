import { useEffect, useState } from 'preact/hooks';
import { SCOPES, type Scope } from '../../scopes.ts';
import { dash } from '../api.ts';
import { ScopePicker } from './keys.tsx';

interface Pending {
  userCode: string;
  client: { id: string; name: string; verified: boolean };
  scopes: string[];
  expiresAt: string;
}

/** /oauth/device: enter (or confirm) the user code, see the app and its scopes, approve or deny. */
export function Device(props: { initialCode: string }) {
  const [code, setCode] = useState(props.initialCode);
  const [pending, setPending] = useState<Pending | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState('');
  const [done, setDone] = useState<'approved' | 'denied' | null>(null);

  const lookup = async (e?: Event) => {
    e?.preventDefault();
    setError('');
    try {
      const p = await dash<Pending>('POST', '/device/lookup', { userCode: code });
      setPending(p);
      setChosen(new Set(p.scopes));
    } catch (err) {
      setPending(null);
      setError((err as Error).message);
    }
  };
  useEffect(() => {
    if (props.initialCode) void lookup();
  }, []);

  // Approving needs a recent password: dash() asks for it (sudo mode) and sends the answer again.
  const decide = async (approve: boolean) => {
    setError('');
    try {
      await dash(
        'POST',
        `/device/${approve ? 'approve' : 'deny'}`,
        approve ? { userCode: pending!.userCode, scopes: [...chosen] } : { userCode: pending!.userCode },
      );
      setDone(approve ? 'approved' : 'denied');
    } catch (err) {
      setError((err as Error).message);
    }
  };

  if (done) {
    return (
      <section class="card narrow" data-testid="device-done">
        <h1>{done === 'approved' ? 'Device connected' : 'Request denied'}</h1>
        <p>
          {done === 'approved'
            ? `${pending!.client.name} can now use your account with the scopes you chose. You can return to your device.`
            : 'The device was not given access.'}
        </p>
      </section>
    );
  }
  return (
    <div class="narrow">
      <h1>Connect a device</h1>
      <form class="card" onSubmit={lookup} method="post" action="/dashboard/api/device/lookup">
        <label>
          Code shown on your device
          <input
            name="user_code"
            class="code"
            autocomplete="off"
            spellcheck={false}
            placeholder="XXXX-XXXX"
            maxLength={12}
            value={code}
            onInput={(e) => setCode(e.currentTarget.value.toUpperCase())}
          />
        </label>
        <button type="submit">Continue</button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      {pending && (
        <section class="card" data-testid="device-request">
          <h2>
            <strong>{pending.client.name}</strong> wants access to your account
          </h2>
          <p class="muted">
            Code <span class="mono">{pending.userCode}</span>. Client{' '}
            <span class="mono" data-testid="client-id">
              {pending.client.id}
            </span>
            {!pending.client.verified && (
              <>
                {' '}
                <strong class="unverified" data-testid="unverified">
                  unverified
                </strong>
                : the name above is the one it chose for itself
              </>
            )}
            . Untick any scope you do not want to grant.
          </p>
          <ScopePicker scopes={pending.scopes} chosen={chosen} onChange={setChosen} />
          <ul class="small muted">
            {pending.scopes.map((s) => (
              <li key={s}>
                <span class="mono">{s}</span>: {SCOPES[s as Scope]}
              </li>
            ))}
          </ul>
          <div class="actions">
            <button type="button" disabled={chosen.size === 0} onClick={() => decide(true)}>
              Approve
            </button>
            <button type="button" class="danger" onClick={() => decide(false)}>
              Deny
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
