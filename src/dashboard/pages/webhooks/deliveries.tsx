import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { ListTable } from '../../list-table.tsx';

const DELIVERY_FIELDS =
  'id eventId eventType status attemptCount maxAttempts nextAttemptAt lastStatusCode lastError lastAttemptAt createdAt attempts { number startedAt durationMs statusCode error succeeded manual }';

/** A delivery as the log reads it (DELIVERY_FIELDS). */
interface DeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  maxAttempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  createdAt: string;
  attempts: {
    number: number;
    startedAt: string;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    succeeded: boolean;
    manual: boolean;
  }[];
}

/** How often, and how many times at most, the log is read again while a delivery sent from here is pending. */
const WATCH_MS = 1000;
const WATCH_ROUNDS = 60;

/**
 * The delivery log of one subscription, newest first. It is read again on every live event (a
 * delivery follows each), and, while a delivery sent from this page (a test event, a
 * redelivery: `watch`) is pending, every second: a test event is no account event, so no live
 * event announces its outcome.
 */
export function Deliveries(props: { webhookId: string; reloadKey: number; watch: string | null }) {
  // Every read of the log counts here (a change re-reads it); `polls` counts those of one watch.
  const [reads, setReads] = useState(0);
  const [polls, setPolls] = useState(0);
  const [watching, setWatching] = useState<string | null>(props.watch);
  const [message, setMessage] = useState('');
  const state = useLive<{ webhookDeliveries: { nodes: DeliveryRow[] } }>(
    `query($id: ID!) { webhookDeliveries(id: $id, first: 50) { nodes { ${DELIVERY_FIELDS} } } }`,
    [''],
    { id: props.webhookId },
    reads,
  );
  const watch = (deliveryId: string | null) => {
    setWatching(deliveryId);
    setPolls(0);
    setReads((r) => r + 1);
  };
  const mounted = useRef(false);
  useEffect(() => {
    // On mount the first read is under way already.
    if (mounted.current) watch(props.watch);
    mounted.current = true;
  }, [props.watch, props.reloadKey]);
  const rows = state.data?.webhookDeliveries.nodes;
  useEffect(() => {
    if (!watching || !rows) return;
    const watched = rows.find((d) => d.id === watching);
    if ((watched && watched.status !== 'pending') || polls >= WATCH_ROUNDS) return setWatching(null);
    const timer = setTimeout(() => {
      setPolls((p) => p + 1);
      setReads((r) => r + 1);
    }, WATCH_MS);
    return () => clearTimeout(timer);
  }, [rows, watching]);

  const redeliver = async (deliveryId: string) => {
    setMessage('');
    try {
      await gql(`mutation($id: ID!, $d: ID!) { webhookRedeliver(id: $id, deliveryId: $d) { id status } }`, {
        id: props.webhookId,
        d: deliveryId,
      });
      setMessage('Redelivery queued.');
      watch(deliveryId);
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  if (state.error) return <p class="error">{state.error}</p>;
  if (!rows) return <p class="muted">Loading…</p>;
  return (
    <div data-testid="deliveries">
      <p role="status" class="muted">
        {message}
      </p>
      {/* On a phone each delivery is a card (style.css: table.stack). */}
      <ListTable
        rows={rows}
        empty="No deliveries yet. Send a test event to see one."
        columns={['Event', 'Status', 'Attempts', 'Last response', 'Last attempt', 'Next attempt']}
        actions
        stack
      >
        {(d) => (
          <tr key={d.id} data-testid="delivery">
            <td data-label="Event">
              {/* One child: on a phone the cell is a label-and-value grid. */}
              <div>
                <span class="mono">{d.eventType}</span>
                <div class="small muted mono wrap-anywhere">{d.eventId}</div>
              </div>
            </td>
            <td data-label="Status" data-testid="delivery-status">
              <StatusBadge status={d.status} />
            </td>
            <td data-label="Attempts">
              {d.attemptCount} / {d.maxAttempts}
            </td>
            <td data-label="Last response" class="wrap">
              {d.lastStatusCode ?? (d.lastError ? <span class="small">{d.lastError}</span> : '—')}
            </td>
            <td data-label="Last attempt">
              <When at={d.lastAttemptAt} />
            </td>
            <td data-label="Next attempt">
              <When at={d.nextAttemptAt} />
            </td>
            <td>
              <button type="button" onClick={() => redeliver(d.id)}>
                Redeliver
              </button>
            </td>
          </tr>
        )}
      </ListTable>
    </div>
  );
}
