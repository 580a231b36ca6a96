import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../confirm.tsx';
import { StatusBadge, When } from '../format.tsx';
import { Link } from '../router.tsx';
import { useLive } from '../live-query.tsx';
import { Access } from './server/access.tsx';
import { Addresses } from './server/addresses.tsx';
import { Addons } from './server/addons.tsx';
import { Reinstall, Terminate } from './server/danger.tsx';
import { Plan } from './server/plan.tsx';
import { PAGE_QUERY, type PageData, type PowerAction, type SectionProps, type UsagePeriod } from './server/shared.tsx';
import { Snapshots } from './server/snapshots.tsx';
import { Stats } from './server/stats.tsx';
import { graphql } from '../graphql.ts';

/**
 * The API samples usage once a minute: reading twice as often catches every sample. Every move of
 * the server's status comes as a live event or live change (a reboot settling among them), so
 * nothing else is polled.
 */
const STATS_POLL_MS = 30_000;

/** A server's page (also where its SSO link lands): facts, power, usage, snapshots, addresses, plan, add-ons, reinstall, terminate. */
export function ServerPage(props: { id: string }) {
  // Bumped after a change made here so the page reads the new state even before its live event arrives.
  const [reload, setReload] = useState(0);
  const [busy, setBusy] = useState(false);
  // The usage charts' period is a variable of the page's one read: a new choice reads the page again.
  const [period, setPeriod] = useState<UsagePeriod>('HOUR');
  const state = useLive(PAGE_QUERY, ['server.', 'pool.'], { id: props.id, period }, reload);
  const [message, setMessage] = useState('');
  // A failed re-read (the connection dropped, say) keeps the page as last read, with a note.
  const lastRead = useRef<PageData | undefined>(undefined);
  if (state.data) lastRead.current = state.data.server.id === props.id ? state.data : undefined;
  const data = state.data ?? (lastRead.current?.server.id === props.id ? lastRead.current : undefined);
  const s = data?.server;
  useEffect(() => {
    const timer = setInterval(() => setReload((n) => n + 1), STATS_POLL_MS);
    return () => clearInterval(timer);
  }, []);

  const power = async (action: PowerAction) => {
    setMessage('');
    setBusy(true);
    try {
      await gql(
        graphql('mutation($id: ID!, $action: PowerAction!) { serverPower(id: $id, action: $action) { id status } }'),
        {
          id: props.id,
          action,
        },
      );
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setBusy(false);
      setReload((n) => n + 1);
    }
  };
  if (state.error && !data)
    return (
      <section class="card">
        <h1>Server</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  if (!s || !data) return <p class="muted">Loading…</p>;
  const why = (action: PowerAction) =>
    busy ? 'A power change is under way.' : (s.powerActions.find((a) => a.action === action)?.reason ?? null);
  const reread = () => setReload((n) => n + 1);
  // Its pool was deleted: the server is kept stopped, for a snapshot or to be terminated.
  const preserved = !s.pool && s.poolId !== null;
  const section: SectionProps = { server: s, onChanged: reread };
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
          <dd data-testid="server-plan">
            {s.productId} — {s.vcpu} vCPU, {s.ramMb / 1024} GB RAM, {s.diskGb} GB disk
          </dd>
          <dt>System</dt>
          <dd data-testid="server-system">
            {s.os} / {s.osTemplate}
          </dd>
          <dt>Created</dt>
          <dd>
            <When at={s.createdAt} />
          </dd>
          <dt>Renews</dt>
          <dd data-testid="server-renews">
            <When
              at={s.renewsAt}
              none={s.pool ? 'with its pool' : s.poolId ? 'never: its pool was deleted' : 'a month after it is running'}
            />
          </dd>
          <dt>Pool</dt>
          <dd>{s.pool ? <Link href={`/pools/${s.pool.id}`}>{s.pool.label}</Link> : s.poolId ? 'deleted' : '—'}</dd>
          <dt>Addresses</dt>
          <dd class="mono">{s.ips.map((i) => i.ip).join(', ') || '—'}</dd>
          <dt>SSH keys</dt>
          <dd data-testid="server-ssh-keys">
            {s.sshKeys.length
              ? s.sshKeys.map((k) => (
                  <span key={k.id} class="key-chip" title={k.fingerprint}>
                    {k.name}
                  </span>
                ))
              : 'none'}
          </dd>
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
        {preserved && (
          <p class="notice-box" data-testid="server-preserved">
            This server was kept, powered off, when its capacity pool was deleted: it cannot be started again. Take a
            snapshot to keep what is on its disk, or terminate it.
          </p>
        )}
        {message && <p class="error">{message}</p>}
        {state.error && <p class="error">Could not read the server again: {state.error}</p>}
      </section>
      <Access {...section} />
      <Stats status={s.status} usage={s.usage} period={period} onPeriod={setPeriod} onRefresh={reread} />
      <Snapshots {...section} />
      <Addresses {...section} />
      <div class="pair">
        <Plan {...section} />
        <Addons {...section} addons={data.serverAddons.nodes} />
      </div>
      <Reinstall {...section} templates={data.serverCatalogue.osTemplates} />
      <Terminate {...section} />
    </div>
  );
}
