import { useEffect, useState } from 'preact/hooks';
import { onEvent, recentEvents, type LiveEvent } from '../api.ts';
import { When } from '../format.tsx';

/** The live event feed: every event of the account as it happens (graphql-ws). */
export function EventFeed() {
  const [events, setEvents] = useState<LiveEvent[]>([...recentEvents]);
  useEffect(() => onEvent(() => setEvents([...recentEvents])), []);
  return (
    <div>
      <h1>Live events</h1>
      <section class="card">
        <p class="muted">Events of your account since you opened the dashboard in this tab, newest first.</p>
        {events.length === 0 ? (
          <p class="muted">Waiting for events…</p>
        ) : (
          <ol class="feed" data-testid="event-feed">
            {events.map((e) => (
              <li key={e.id}>
                <span class="mono type">{e.type}</span>
                <span class="muted small">
                  <When at={e.created} />
                </span>
                <code class="small">{JSON.stringify(e.data)}</code>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
