import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { ListTable } from '../../list-table.tsx';
import { graphql } from '../../graphql.ts';

const DELIVERIES_QUERY = graphql(`query($id: ID!) { webhookDeliveries(id: $id, first: 50) { nodes {
  id eventId eventType status attemptCount maxAttempts nextAttemptAt lastStatusCode lastError lastAttemptAt createdAt
  attempts { number startedAt durationMs statusCode error succeeded manual }
} } }`);
const REDELIVER = graphql('mutation($id: ID!, $d: ID!) { webhookRedeliver(id: $id, deliveryId: $d) { id status } }');

/**
 * The delivery log of one subscription, newest first. It is read again on every account event (a
 * delivery may follow it) and every live change, among them each `webhook.delivery.changed`: a
 * delivery queued again (a redelivery, a test event) and each attempt's outcome.
 */
export function Deliveries(props: { webhookId: string; reloadKey: number }) {
  // Bumped after a redelivery from here, so the log reads it even before its live change arrives.
  const [reads, setReads] = useState(0);
  const [message, setMessage] = useState('');
  const state = useLive(
    DELIVERIES_QUERY,
    [''],
    { id: props.webhookId },
    // Both only grow: the sum changes whenever either does.
    props.reloadKey + reads,
  );
  const rows = state.data?.webhookDeliveries.nodes;

  const redeliver = async (deliveryId: string) => {
    setMessage('');
    try {
      await gql(REDELIVER, {
        id: props.webhookId,
        d: deliveryId,
      });
      setMessage('Redelivery queued.');
      setReads((r) => r + 1);
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
