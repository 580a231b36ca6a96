import { useState } from 'preact/hooks';
import { gql, HttpError } from '../../api.ts';
import { DisabledReason, disabledProps } from '../../confirm.tsx';
import { Link } from '../../router.tsx';
import type { PoolAddress, PoolMember } from './pool-types.ts';
import { graphql } from '../../graphql.ts';

const APPLY_MUTATION = graphql(`mutation($id: ID!, $changes: [PoolIpChange!]!) {
  poolIpsApply(id: $id, changes: $changes) { ip assignedTo }
}`);

/** The select's value for "free in the block" (a server id is never empty). */
const FREE = '';

/**
 * Which address is on which server, and moving them: each row's holder can be changed, and the
 * changes are sent together as one batch (the API applies all or none, and allows few batches a
 * minute). A refused change shows its reason on its row.
 */
export function PoolAddresses(props: {
  poolId: string;
  addresses: PoolAddress[];
  members: PoolMember[];
  onApplied(): void;
}) {
  // Planned holder per address, only where it differs from the holder now.
  const [planned, setPlanned] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [rowErrors, setRowErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  // A block can hold 128 addresses: the free ones are listed on demand.
  const [showFree, setShowFree] = useState(false);
  const byId = new Map(props.members.map((m) => [m.id, m]));
  const changes = props.addresses
    .filter((a) => a.ip in planned && planned[a.ip] !== (a.assignedTo ?? FREE))
    .map((a) => ({ ip: a.ip, serverId: planned[a.ip] || null }));

  const choose = (ip: string, holder: string) => {
    setDone('');
    setPlanned((p) => ({ ...p, [ip]: holder }));
    setRowErrors((e) => {
      const { [ip]: _, ...rest } = e;
      return rest;
    });
  };

  const apply = async () => {
    setBusy(true);
    setError('');
    setRowErrors({});
    setDone('');
    try {
      await gql(APPLY_MUTATION, { id: props.poolId, changes });
      setPlanned({});
      setDone(changes.length === 1 ? 'The address was moved.' : `${changes.length} addresses were moved.`);
      props.onApplied();
    } catch (err) {
      const { message } = err as Error;
      // The API names the change at fault by its place in the batch: changes[2].serverId.
      const at = err instanceof HttpError ? /^changes\[(\d+)\]/.exec(err.field ?? '') : null;
      const ip = at ? changes[Number(at[1])]?.ip : undefined;
      if (ip) setRowErrors({ [ip]: message });
      else setError(message);
    } finally {
      setBusy(false);
    }
  };

  const freeCount = props.addresses.filter((a) => a.assignedTo === null).length;
  const shown = props.addresses.filter((a) => showFree || a.assignedTo !== null || a.ip in planned);
  const n = changes.length;
  const blocked = busy
    ? 'The changes are being applied.'
    : n === 0
      ? 'Choose a new server for an address first.'
      : null;
  const applyLabel = n === 0 ? 'Apply changes' : n === 1 ? 'Apply 1 change' : `Apply ${n} changes`;
  const holderText = (id: string | null) => (id ? (byId.get(id)?.label ?? id) : 'free');

  return (
    <section class="card" data-testid="pool-addresses" aria-busy={busy}>
      <h2>Addresses</h2>
      {props.addresses.length === 0 ? (
        <p class="muted">The pool has no IPv4 addresses. Resize it to add a block of 16.</p>
      ) : (
        <>
          <p class="small muted">
            Choose another server of the pool (or free) for an address, then apply: all changes apply together or none
            does. The server's own network settings are not changed.
          </p>
          {freeCount > 0 && (
            <label class="check show-free">
              <input type="checkbox" checked={showFree} onChange={(e) => setShowFree(e.currentTarget.checked)} />
              Show the {freeCount === 1 ? 'free address' : `${freeCount} free addresses`}
            </label>
          )}
          {shown.length === 0 && <p class="muted">No address is on a server yet.</p>}
          {/* On a phone each address is a card (style.css: table.stack). */}
          <table class="stack" hidden={shown.length === 0}>
            <thead>
              <tr>
                <th>Address</th>
                <th>On server</th>
                <th>Move to</th>
                <th>Reverse DNS</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((a) => {
                const now = a.assignedTo ?? FREE;
                const value = planned[a.ip] ?? now;
                const rowError = rowErrors[a.ip];
                return (
                  <tr key={a.ip} data-testid={`pool-ip-${a.ip}`} class={value !== now ? 'selected' : undefined}>
                    <td data-label="Address" class="mono">
                      {a.ip}
                    </td>
                    <td data-label="On server" data-testid="ip-holder">
                      {a.assignedTo && byId.has(a.assignedTo) ? (
                        <Link href={`/servers/${a.assignedTo}`}>{holderText(a.assignedTo)}</Link>
                      ) : (
                        <span class="muted">{holderText(a.assignedTo)}</span>
                      )}
                    </td>
                    <td data-label="Move to" class="wrap">
                      <select
                        class="compact"
                        aria-label={`Move ${a.ip} to`}
                        value={value}
                        disabled={busy}
                        aria-invalid={rowError ? 'true' : undefined}
                        aria-describedby={rowError ? `ip-error-${a.ip}` : undefined}
                        onChange={(e) => choose(a.ip, e.currentTarget.value)}
                      >
                        <option value={FREE}>Free (in the block)</option>
                        {props.members.map((m) => (
                          <option key={m.id} value={m.id}>
                            {m.label}
                          </option>
                        ))}
                      </select>
                      {rowError && (
                        <span id={`ip-error-${a.ip}`} class="error field-error">
                          {rowError}
                        </span>
                      )}
                    </td>
                    <td data-label="Reverse DNS" class="mono">
                      {a.ptr ?? '—'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {error && (
            <p role="alert" class="error refusal">
              {error}
            </p>
          )}
          <div class="actions">
            <button type="button" onClick={apply} {...disabledProps('Apply address changes', blocked)}>
              {busy ? 'Applying…' : applyLabel}
            </button>
            <DisabledReason label="Apply address changes" reason={blocked} />
            <button
              type="button"
              class="secondary"
              disabled={busy || n === 0}
              onClick={() => {
                setPlanned({});
                setRowErrors({});
              }}
            >
              Discard changes
            </button>
          </div>
          <p role="status" class="ok">
            {done}
          </p>
        </>
      )}
    </section>
  );
}
