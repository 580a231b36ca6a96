import { useEffect, useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { gql } from '../api.ts';
import { StatusBadge, When } from '../format.tsx';
import { useLive } from '../live-query.tsx';

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

/** A subscription as the list reads it. */
interface WebhookRow {
  id: string;
  url: string;
  description: string;
  events: string[];
  isActive: boolean;
  secret: string;
  createdAt: string;
}

function Deliveries(props: { webhookId: string }) {
  const [tick, setTick] = useState(0);
  const state = useLive<{ webhookDeliveries: { nodes: DeliveryRow[] } }>(
    `query($id: ID!) { webhookDeliveries(id: $id, first: 50) { nodes { ${DELIVERY_FIELDS} } } }`,
    [''],
    { id: props.webhookId },
    tick,
  );
  const [message, setMessage] = useState('');
  const redeliver = async (deliveryId: string) => {
    try {
      await gql(`mutation($id: ID!, $d: ID!) { webhookRedeliver(id: $id, deliveryId: $d) { id status } }`, {
        id: props.webhookId,
        d: deliveryId,
      });
      setMessage('Redelivery queued.');
      setTick((t) => t + 1);
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  if (state.error) return <p class="error">{state.error}</p>;
  if (!state.data) return <p class="muted">Loading…</p>;
  const rows = state.data.webhookDeliveries.nodes;
  return (
    <div data-testid="deliveries">
      {message && <p class="muted">{message}</p>}
      {rows.length === 0 ? (
        <p class="muted">No deliveries yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Last response</th>
                <th>Last attempt</th>
                <th>Next attempt</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td>
                    <span class="mono">{d.eventType}</span>
                    <div class="small muted mono">{d.eventId}</div>
                  </td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>
                    {d.attemptCount} / {d.maxAttempts}
                  </td>
                  <td class="wrap">
                    {d.lastStatusCode ?? (d.lastError ? <span class="small">{d.lastError}</span> : '—')}
                  </td>
                  <td>
                    <When at={d.lastAttemptAt} />
                  </td>
                  <td>
                    <When at={d.nextAttemptAt} />
                  </td>
                  <td>
                    <button type="button" onClick={() => redeliver(d.id)}>
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function Webhooks() {
  const [tick, setTick] = useState(0);
  const list = useLive<{ webhooks: { nodes: WebhookRow[] } }>(
    '{ webhooks(first: 100) { nodes { id url description events isActive secret createdAt } } }',
    [],
    undefined,
    tick,
  );
  const [selected, setSelected] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [created, setCreated] = useState<{ secret: string } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!selected && list.data?.webhooks.nodes.length) setSelected(list.data.webhooks.nodes[0].id);
  }, [list.data]);

  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const kinds = events.split(/[\s,]+/).filter(Boolean);
      const r = await gql<{ webhookCreate: { id: string; secret: string } }>(
        'mutation($url: String!, $events: [String!]!) { webhookCreate(url: $url, events: $events) { id secret } }',
        { url, events: kinds },
      );
      setCreated(r.webhookCreate);
      setSelected(r.webhookCreate.id);
      setUrl('');
      setTick((t) => t + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div>
      <h1>Webhooks</h1>
      <section class="card">
        <h2>Subscriptions</h2>
        {list.error ? (
          <p class="error">{list.error}</p>
        ) : !list.data ? (
          <p class="muted">Loading…</p>
        ) : list.data.webhooks.nodes.length === 0 ? (
          <p class="muted">No subscriptions.</p>
        ) : (
          <div class="table-wrap">
            <table data-testid="webhooks">
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Events</th>
                  <th>Active</th>
                  <th>Secret</th>
                  <th>Created</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {list.data.webhooks.nodes.map((w) => (
                  <tr key={w.id} class={w.id === selected ? 'selected' : ''}>
                    <td class="mono small">{w.url}</td>
                    <td class="small wrap">{w.events.join(', ')}</td>
                    <td>{w.isActive ? 'yes' : 'paused'}</td>
                    <td class="mono small">{w.secret}</td>
                    <td>
                      <When at={w.createdAt} />
                    </td>
                    <td>
                      <button type="button" onClick={() => setSelected(w.id)}>
                        Deliveries
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form onSubmit={create} class="inline" method="post" action="/graphql">
          <input
            name="url"
            type="url"
            aria-label="Endpoint URL"
            required
            placeholder="https://example.com/hooks"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <input
            name="events"
            aria-label="Event kinds"
            title={`* or any of: ${Object.keys(EVENT_TYPES).join(', ')}`}
            value={events}
            onInput={(e) => setEvents(e.currentTarget.value)}
          />
          <button type="submit">Add subscription</button>
        </form>
        {error && <p class="error">{error}</p>}
        {created && (
          <p class="notice">
            Signing secret (shown once): <code class="secret">{created.secret}</code>
          </p>
        )}
      </section>
      {selected && (
        <section class="card">
          <h2>Delivery log</h2>
          <Deliveries webhookId={selected} />
        </section>
      )}
    </div>
  );
}
