import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Json } from './app.ts';

export const EVENTS_SUBSCRIPTION = `subscription ($after: String, $types: [String!]) {
  events(after: $after, types: $types) { id type created account apiVersion data }
}`;

const LIVE_CHANGES_SUBSCRIPTION = `subscription ($types: [String!]) {
  liveChanges(types: $types) { type created account data }
}`;

/** A `liveChanges` item as LIVE_CHANGES_SUBSCRIPTION selects it (LiveChange in schema/schema.graphql). */
export interface SubscribedChange {
  type: string;
  created: string;
  account: string;
  data: Json;
}

/** An `events` item as EVENTS_SUBSCRIPTION selects it (Event in schema/schema.graphql). */
interface SubscribedEvent {
  id: string;
  type: string;
  created: string;
  account: string;
  apiVersion: string;
  data: Json;
}

export interface Subscriber<T = SubscribedEvent> {
  client: Client;
  events: T[];
  errors: unknown[];
  closeCode?: number;
  /** Resolves once `n` events arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<T[]>;
  dispose(): Promise<void>;
}

/** A graphql-ws client subscribed to `events`, collecting what it receives. */
export function subscribeEvents(
  baseUrl: string,
  key: string | null,
  variables: Record<string, unknown> = {},
): Promise<Subscriber> {
  return subscribeTo<SubscribedEvent>(baseUrl, key, EVENTS_SUBSCRIPTION, 'events', variables);
}

/** A graphql-ws client subscribed to `liveChanges`, collecting what it receives (in `events`). */
export function subscribeLiveChanges(
  baseUrl: string,
  key: string | null,
  variables: Record<string, unknown> = {},
): Promise<Subscriber<SubscribedChange>> {
  return subscribeTo<SubscribedChange>(baseUrl, key, LIVE_CHANGES_SUBSCRIPTION, 'liveChanges', variables);
}

async function subscribeTo<T>(
  baseUrl: string,
  key: string | null,
  query: string,
  field: string,
  variables: Record<string, unknown>,
): Promise<Subscriber<T>> {
  const s: Partial<Subscriber<T>> & { events: T[]; errors: unknown[] } = { events: [], errors: [] };
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
  client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (msg) => {
        if (msg.errors) s.errors.push(...msg.errors);
        else s.events.push(msg.data![field]);
      },
      error: (err) => s.errors.push(err),
      complete: () => undefined,
    },
  );
  s.client = client;
  s.waitFor = async (n, ms = 5000) => {
    const until = Date.now() + ms;
    while (s.events.length < n) {
      if (Date.now() > until)
        throw new Error(`got ${s.events.length} of ${n} events; errors: ${JSON.stringify(s.errors)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return s.events;
  };
  s.dispose = () => client.dispose() as Promise<void>;
  await ready.catch(() => undefined);
  // Let the server register the subscription before the caller produces events.
  await new Promise((r) => setTimeout(r, 150));
  return s as Subscriber<T>;
}

/** A graphql-transport-ws message as received: `payload` is whatever JSON the server sent. */
interface WsMessage {
  type: string;
  id?: string;
  payload?: Json;
}

/** A graphql-ws connection spoken by hand: every message kept, so a test sees exactly what the server answered. */
export interface RawSocket {
  messages: WsMessage[];
  /** Set once the server closed the socket. */
  closed?: { code: number; reason: string };
  send(message: unknown): void;
  /** Sends a `subscribe` with this id. */
  start(id: string, query: string, variables?: Record<string, unknown>): void;
  /** The messages for `id`, once its `complete` or `error` arrived (or the socket closed). */
  finished(id: string, ms?: number): Promise<WsMessage[]>;
  /** Messages for `id` so far. */
  of(id: string): WsMessage[];
  close(): Promise<void>;
}

/**
 * Opens /graphql over graphql-ws with `key` in connectionParams (null: none, e.g. the dashboard's
 * session cookie in `headers`) and waits for connection_ack.
 */
export async function rawGraphQLWs(
  baseUrl: string,
  key: string | null,
  headers: Record<string, string> = {},
): Promise<RawSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
  const s: RawSocket = {
    messages: [],
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    start: (id, query, variables) =>
      s.send({ id, type: 'subscribe', payload: { query, ...(variables ? { variables } : {}) } }),
    of: (id) => s.messages.filter((m) => m.id === id),
    async finished(id, ms = 10_000) {
      const until = Date.now() + ms;
      while (!s.closed && !s.of(id).some((m) => m.type === 'complete' || m.type === 'error')) {
        if (Date.now() > until) throw new Error(`operation ${id} did not finish; got ${JSON.stringify(s.of(id))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return s.of(id);
    },
    async close() {
      if (ws.readyState === ws.CLOSED) return;
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
  ws.on('message', (data) => s.messages.push(JSON.parse(String(data))));
  ws.on('close', (code, reason) => (s.closed = { code, reason: String(reason) }));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () =>
      ws.send(JSON.stringify({ type: 'connection_init', payload: key ? { authorization: `Bearer ${key}` } : {} })),
    );
    ws.once('error', reject);
    const acked = () =>
      s.messages.some((m) => m.type === 'connection_ack')
        ? resolve()
        : s.closed
          ? reject(new Error(`closed ${s.closed.code}`))
          : setTimeout(acked, 10);
    acked();
  });
  return s;
}
