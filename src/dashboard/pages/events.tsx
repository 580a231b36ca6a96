import { useEffect, useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { gql, HttpError, onEvent, recentEvents, type LiveEvent } from '../api.ts';
import { When } from '../format.tsx';
import { graphql } from '../graphql.ts';

/** Every kind of the catalogue, so the filter offers them all whichever one is chosen. */
const KINDS = Object.keys(EVENT_TYPES).sort();

const HISTORY = graphql(
  'query($type: String, $resource: String) { eventHistory(first: 50, type: $type, resource: $resource) { nodes { id type created data } } }',
);

/** Whether a live event passes the filters the history was read with (the API applies them to the history). */
const matches = (e: LiveEvent, type: string, resource: string) =>
  (!type || e.type === type) && (!resource || Object.values(e.data).includes(resource));

/**
 * The account's activity: its event history (GET /events' GraphQL field), newest first, with the
 * events arriving live (graphql-ws) on top, filtered by kind and by the resource they name.
 */
export function EventFeed() {
  const [history, setHistory] = useState<LiveEvent[] | null>(null);
  const [live, setLive] = useState<LiveEvent[]>([...recentEvents]);
  const [type, setType] = useState('');
  const [resource, setResource] = useState('');
  // What is typed, applied on Enter or leaving the field: a live event re-rendering the page
  // while someone types must not put the applied filter back over their text.
  const [typed, setTyped] = useState('');
  const [error, setError] = useState('');
  const [errorField, setErrorField] = useState<string | undefined>();
  useEffect(() => onEvent(() => setLive([...recentEvents])), []);
  useEffect(() => {
    // A filter changed while the last read was under way: that read's answer is for the old filter.
    let current = true;
    setHistory(null);
    setError('');
    setErrorField(undefined);
    gql(HISTORY, { type: type || null, resource: resource || null })
      .then((d) => current && setHistory(d.eventHistory.nodes))
      .catch((err: Error) => {
        if (!current) return;
        setError(err.message);
        setErrorField(err instanceof HttpError ? err.field : undefined);
        setHistory([]);
      });
    return () => {
      current = false;
    };
  }, [type, resource]);
  // Live events and history overlap once an event is in both: one entry per id, newest (highest id) first.
  const byId = new Map<string, LiveEvent>();
  for (const e of [...live.filter((e) => matches(e, type, resource)), ...(history ?? [])]) byId.set(e.id, e);
  const events = [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : -1));
  // The resources the events shown name (their `…Id` fields), offered as the resource filter's choices.
  const resources = [
    ...new Set(
      [...(history ?? []), ...live].flatMap((e) =>
        Object.entries(e.data)
          .filter(([k, v]) => k.endsWith('Id') && typeof v === 'string')
          .map(([, v]) => v as string),
      ),
    ),
  ].sort();
  const resourceError = error && errorField === 'resource';
  return (
    <div>
      <h1>Live events</h1>
      <section class="card">
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Kind
            <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
              <option value="">All kinds</option>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label>
            Resource id
            <input
              value={typed}
              placeholder="srv_…"
              list="event-resources"
              autocomplete="off"
              aria-invalid={resourceError ? 'true' : undefined}
              aria-describedby={resourceError ? 'activity-error' : 'activity-resource-hint'}
              onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
              onChange={(e) => setResource((e.target as HTMLInputElement).value.trim())}
            />
            <datalist id="event-resources">
              {resources.map((r) => (
                <option key={r} value={r} />
              ))}
            </datalist>
            {resourceError ? (
              <span id="activity-error" class="error field-error" role="alert">
                {error}
              </span>
            ) : (
              <span id="activity-resource-hint" class="muted small">
                Only the events naming this server, invoice, ticket … (Enter applies it).
              </span>
            )}
          </label>
        </form>
        {error && !resourceError && (
          <p id="activity-error" class="error" role="alert">
            {error}
          </p>
        )}
        {history === null ? (
          <p class="muted" role="status">
            Loading the account's events…
          </p>
        ) : events.length === 0 ? (
          <p class="muted" data-testid="no-events">
            {resource && !error
              ? `No event names ${resource}${type ? ` with the kind ${type}` : ''}: check the id (it is in the address of the resource's page, such as srv_… or inv_…); new events appear here as they happen.`
              : type
                ? `No ${type} events yet. New ones appear here as they happen.`
                : 'No events yet. New ones appear here as they happen.'}
          </p>
        ) : (
          <ol class="feed" data-testid="event-feed">
            {events.map((e) => (
              <li key={e.id}>
                <span class="mono type">{e.type}</span>
                <span class="muted small">
                  <When at={e.created} />
                </span>
                <pre class="payload small">{JSON.stringify(e.data, null, 2)}</pre>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
