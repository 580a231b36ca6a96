import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { money, StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { navigate, BackLink } from '../../router.tsx';
import { LinkedRows, RowLink } from '../../list-table.tsx';
import { PoolAddresses } from './addresses.tsx';
import { PoolServerForm } from './create-server.tsx';
import { ResizePool } from './resize.tsx';
import { shapeText, UNITS, unitsOf } from './units.tsx';
import { POOL_QUERY, type PoolMember, type Resources } from './pool-types.ts';
import { graphql } from '../../graphql.ts';

const USAGE_ROWS: { key: keyof Resources; label: string; unit: (n: number) => string }[] = [
  { key: 'vcpu', label: 'vCPU', unit: (n) => `${n} vCPU` },
  { key: 'ramMb', label: 'RAM', unit: (n) => `${n / 1024} GB` },
  { key: 'diskGb', label: 'Disk', unit: (n) => `${n} GB` },
  { key: 'ips', label: 'IPv4 addresses', unit: (n) => `${n}` },
];

/** Used against total for each resource, as bars a screen reader reads as "RAM: 4 GB of 16 GB used". */
function UsageBars(props: { usage: Resources; quota: Resources }) {
  return (
    <div class="usage" data-testid="pool-usage">
      {USAGE_ROWS.map(({ key, label, unit }) => {
        const used = props.usage[key];
        const total = props.quota[key];
        const text = `${unit(used)} of ${unit(total)} used`;
        const id = `usage-${key}`;
        return (
          <div class="usage-row" key={key}>
            <div class="usage-head">
              <span id={`${id}-label`}>{label}</span>
              <span data-testid={id}>{text}</span>
            </div>
            <div
              class="bar"
              role="progressbar"
              aria-labelledby={`${id}-label`}
              aria-valuemin={0}
              aria-valuemax={total}
              aria-valuenow={used}
              aria-valuetext={text}
            >
              <div class="bar-fill" style={{ width: `${total > 0 ? Math.min(100, (used / total) * 100) : 0}%` }} />
            </div>
          </div>
        );
      })}
    </div>
  );
}

function Servers(props: { members: PoolMember[] }) {
  if (props.members.length === 0)
    return <p class="muted">No servers in this pool yet. Create one below: it costs nothing more.</p>;
  return (
    // On a phone each server is a card (style.css: table.stack).
    <table class="stack">
      <thead>
        <tr>
          <th>Label</th>
          <th>Status</th>
          <th>Size</th>
          <th>System</th>
          <th>Addresses</th>
        </tr>
      </thead>
      <LinkedRows>
        {props.members.map((s) => (
          <tr key={s.id} data-testid={`pool-server-${s.id}`}>
            <td data-label="Label">
              <RowLink href={`/servers/${s.id}`}>{s.label}</RowLink>
            </td>
            <td data-label="Status" data-testid="server-status">
              <StatusBadge status={s.status} />
            </td>
            <td data-label="Size">
              <div>
                {s.vcpu} vCPU · {s.ramMb / 1024} GB · {s.diskGb} GB <div class="small muted mono">{s.productId}</div>
              </div>
            </td>
            <td data-label="System" class="mono">
              {s.osTemplate}
            </td>
            <td data-label="Addresses" class="mono">
              {s.ips.join(', ') || '—'}
            </td>
          </tr>
        ))}
      </LinkedRows>
    </table>
  );
}

/** /pools/:id: what the pool holds and what is free, its servers and addresses, resizing and deleting it. */
export function PoolPage(props: { id: string }) {
  // Bumped after a change made here, so the page reads it even where no live event follows.
  const [reload, setReload] = useState(0);
  const refresh = () => setReload((n) => n + 1);
  const state = useLive(POOL_QUERY, ['pool.', 'server.'], { id: props.id }, reload);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState('');

  if (state.error)
    return (
      <section class="card">
        <BackLink href="/pools" label="Capacity pools" />
        <h1>Capacity pool</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  if (!state.data) return <p class="muted">Loading…</p>;
  const { pool, poolIps, serverCatalogue } = state.data;

  const remove = async () => {
    setDeleteError('');
    setDeleting(true);
    try {
      await gql(graphql('mutation($id: ID!) { poolDelete(id: $id) { id } }'), { id: pool.id });
      navigate('/pools');
    } catch (err) {
      setDeleteError((err as Error).message);
      setDeleting(false);
    }
  };
  const n = pool.members.length;
  const serversFate =
    n === 0
      ? 'It has no servers.'
      : `Its ${n === 1 ? 'server' : `${n} servers`} (${pool.members.map((m) => m.label).join(', ')}) ${n === 1 ? 'is' : 'are'} powered off and kept: they can be snapshotted or terminated, never started again.`;

  return (
    <div>
      <BackLink href="/pools" label="Capacity pools" />
      <h1>
        {pool.label} <StatusBadge status={pool.status} />
      </h1>
      <div class="pair">
        <section class="card" data-testid="pool-facts">
          <h2>Pool</h2>
          <dl class="facts">
            <dt>Id</dt>
            <dd class="mono">{pool.id}</dd>
            <dt>Product</dt>
            <dd class="mono">{pool.productId}</dd>
            <dt>Size</dt>
            <dd data-testid="pool-shape">{shapeText(pool.quota)}</dd>
            <dt>Monthly</dt>
            <dd data-testid="pool-monthly">{money(pool.monthlyUsdCents)}</dd>
            <dt>Renews</dt>
            <dd>
              <When at={pool.renewsAt} />
            </dd>
            <dt>Bought</dt>
            <dd>
              <When at={pool.createdAt} />
            </dd>
          </dl>
        </section>
        <section class="card">
          <h2>Usage</h2>
          <UsageBars usage={pool.usage} quota={pool.quota} />
        </section>
      </div>
      <section class="card" data-testid="pool-servers">
        <h2>Servers ({n})</h2>
        <Servers members={pool.members} />
      </section>
      <PoolServerForm
        poolId={pool.id}
        quota={pool.quota}
        usage={pool.usage}
        freeAddresses={poolIps.nodes.filter((ip) => ip.assignedTo === null).length}
        plans={serverCatalogue.plans}
        templates={serverCatalogue.osTemplates}
        onCreated={refresh}
      />
      <PoolAddresses poolId={pool.id} addresses={poolIps.nodes} members={pool.members} onApplied={refresh} />
      <ResizePool
        // A new shape (resized here or elsewhere) starts the sliders again from it.
        key={UNITS.map((u) => pool[u]).join('-')}
        poolId={pool.id}
        current={unitsOf(pool)}
        bounds={pool.bounds}
        monthlyUsdCents={pool.monthlyUsdCents}
        onResized={refresh}
      />
      <section class="card" data-testid="pool-delete">
        <h2>Delete the pool</h2>
        <p class="muted">{serversFate} Its addresses go back to the datacenter and nothing is refunded.</p>
        <div class="actions">
          <ConfirmButton
            label={deleting ? 'Deleting…' : 'Delete pool'}
            question={`Delete ${pool.label}?`}
            detail={`${serversFate} Its ${pool.quota.ips} addresses are returned and the rest of this month is not refunded.`}
            confirmLabel="Delete pool"
            onConfirm={remove}
            disabledReason={deleting ? 'The pool is being deleted.' : null}
          />
        </div>
        {deleteError && (
          <p role="alert" class="error">
            {deleteError}
          </p>
        )}
      </section>
    </div>
  );
}
