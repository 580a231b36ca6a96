import { useState } from 'preact/hooks';
import { gql } from '../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../confirm.tsx';
import { StatusBadge, When } from '../format.tsx';
import { Link } from '../router.tsx';
import { useLive } from '../live-query.tsx';

/** The server as its page reads it. */
interface ServerDetail {
  id: string;
  label: string;
  status: string;
  productId: string;
  os: string;
  osTemplate: string;
  vcpu: number;
  ramMb: number;
  diskGb: number;
  createdAt: string;
  renewsAt: string | null;
  ips: { ip: string; version: number; primary: boolean; ptr: string | null }[];
  snapshots: { id: string; name: string; status: string }[];
  addons: { id: string; type: string }[];
  pool: { id: string; label: string } | null;
  /** Each power action and whether the server takes it now, by the API's own rule (why not, if not). */
  powerActions: { action: PowerAction; available: boolean; reason: string | null }[];
}

type PowerAction = 'start' | 'stop' | 'reboot';

/** A server's page (also where its SSO link lands). */
export function ServerPage(props: { id: string }) {
  // Bumped after a power change so the page reads the new status even before its live event arrives.
  const [reload, setReload] = useState(0);
  const [busy, setBusy] = useState(false);
  const state = useLive<{ server: ServerDetail }>(
    // One nested read: the server with its addresses, snapshots, add-ons and pool.
    'query($id: ID!) { server(id: $id) { id label status productId os osTemplate vcpu ramMb diskGb createdAt renewsAt ips { ip version primary ptr } snapshots { id name status } addons { id type } pool { id label } powerActions { action available reason } } }',
    ['server.', 'pool.'],
    { id: props.id },
    reload,
  );
  const [message, setMessage] = useState('');
  const power = async (action: PowerAction) => {
    setMessage('');
    setBusy(true);
    try {
      await gql('mutation($id: ID!, $action: PowerAction!) { serverPower(id: $id, action: $action) { id status } }', {
        id: props.id,
        action,
      });
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setBusy(false);
      setReload((n) => n + 1);
    }
  };
  if (state.error)
    return (
      <section class="card">
        <h1>Server</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  const s = state.data?.server;
  if (!s) return <p class="muted">Loading…</p>;
  const why = (action: PowerAction) =>
    busy ? 'A power change is under way.' : (s.powerActions.find((a) => a.action === action)?.reason ?? null);
  return (
    <div>
      <p>
        <Link href="/servers">← Servers</Link>
      </p>
      <h1>
        {s.label}{' '}
        <span data-testid="server-status">
          <StatusBadge status={s.status} />
        </span>
      </h1>
      <section class="card">
        <dl class="facts">
          <dt>Id</dt>
          <dd class="mono">{s.id}</dd>
          <dt>Plan</dt>
          <dd>
            {s.productId} — {s.vcpu} vCPU, {s.ramMb / 1024} GB RAM, {s.diskGb} GB disk
          </dd>
          <dt>System</dt>
          <dd>
            {s.os} / {s.osTemplate}
          </dd>
          <dt>Created</dt>
          <dd>
            <When at={s.createdAt} />
          </dd>
          <dt>Renews</dt>
          <dd>
            <When at={s.renewsAt} none="with its pool" />
          </dd>
          <dt>Pool</dt>
          <dd>{s.pool ? s.pool.label : '—'}</dd>
          <dt>Snapshots</dt>
          <dd>{s.snapshots.map((x) => x.name).join(', ') || '—'}</dd>
          <dt>Add-ons</dt>
          <dd>{s.addons.map((x) => x.type).join(', ') || '—'}</dd>
          <dt>Addresses</dt>
          <dd class="mono">{s.ips.map((i) => i.ip + (i.ptr ? ` (${i.ptr})` : '')).join(', ') || '—'}</dd>
        </dl>
        <div class="actions">
          <button type="button" onClick={() => power('start')} {...disabledProps('Start', why('start'))}>
            Start
          </button>
          <DisabledReason label="Start" reason={why('start')} />
          <ConfirmButton
            label="Stop"
            question={`Stop ${s.label}?`}
            detail="The server is powered off: its programs stop and it stops answering until you start it again."
            confirmLabel="Stop server"
            onConfirm={() => power('stop')}
            disabledReason={why('stop')}
          />
          <ConfirmButton
            label="Reboot"
            question={`Reboot ${s.label}?`}
            detail="The server restarts: its programs are interrupted and it is unreachable for a short while."
            confirmLabel="Reboot server"
            onConfirm={() => power('reboot')}
            disabledReason={why('reboot')}
          />
        </div>
        {message && <p class="error">{message}</p>}
      </section>
    </div>
  );
}
