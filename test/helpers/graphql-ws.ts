import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export const EVENTS_SUBSCRIPTION = `subscription ($after: String, $types: [String!]) {
  events(after: $after, types: $types) { id type created account apiVersion data }
}`;

export interface Subscriber {
  client: Client;
  events: any[];
  errors: unknown[];
  closeCode?: number;
  /** Resolves once `n` events arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<any[]>;
  dispose(): Promise<void>;
}

/** A graphql-ws client subscribed to `events`, collecting what it receives. */
export async function subscribeEvents(baseUrl: string, key: string | null, variables: Record<string, unknown> = {}): Promise<Subscriber> {
  const s: Partial<Subscriber> & { events: any[]; errors: unknown[] } = { events: [], errors: [] };
  let connected!: () => void;
  let failed!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    connected = resolve;
    failed = reject;
  });
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: key ? { authorization: `Bearer ${key}` } : {},
    retryAttempts: 0,
    lazy: true,
    on: {
      connected: () => connected(),
      closed: (event) => {
        s.closeCode = (event as { code?: number }).code;
        failed(new Error(`closed ${s.closeCode}`));
      },
    },
  });
  client.subscribe({ query: EVENTS_SUBSCRIPTION, variables }, {
    next: (msg) => {
      if (msg.errors) s.errors.push(...msg.errors);
      else s.events.push((msg.data as any).events);
    },
    error: (err) => s.errors.push(err),
    complete: () => undefined,
  });
  s.client = client;
  s.waitFor = async (n, ms = 5000) => {
    const until = Date.now() + ms;
    while (s.events.length < n) {
      if (Date.now() > until) throw new Error(`got ${s.events.length} of ${n} events; errors: ${JSON.stringify(s.errors)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return s.events;
  };
  s.dispose = () => client.dispose() as Promise<void>;
  await ready.catch(() => undefined);
  // Let the server register the subscription before the caller produces events.
  await new Promise((r) => setTimeout(r, 150));
  return s as Subscriber;
}
