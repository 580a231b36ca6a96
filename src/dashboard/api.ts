import { createClient, type Client } from 'graphql-ws';

/** The signed-in state, from GET /dashboard/api/session. */
export interface SessionState {
  signedIn: boolean;
  csrfToken: string;
  account?: { id: string; email: string; name: string };
}

let csrf = '';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function loadSession(): Promise<SessionState> {
  const res = await fetch('/dashboard/api/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  const body = (await res.json()) as SessionState;
  csrf = body.csrfToken;
  return body;
}

/** A call to the dashboard's JSON API (/dashboard/api): session cookie + CSRF header. */
export async function dash<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', 'X-CSRF-Token': csrf, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new HttpError(res.status, data.message ?? `HTTP ${res.status}`);
  if (path === '/sign-in') csrf = data.csrfToken;
  return data as T;
}

/** GraphQL over HTTP with the session (the API accepts the cookie only with the CSRF header). */
export async function gql<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => ({}));
  if (body.errors?.length) throw new HttpError(body.errors[0].extensions?.status ?? res.status, body.errors[0].message);
  if (!res.ok) throw new HttpError(res.status, `HTTP ${res.status}`);
  return body.data as T;
}

// ---------------------------------------------------------------- live events (graphql-ws)

export interface LiveEvent {
  id: string;
  type: string;
  created: string;
  data: Record<string, unknown>;
}

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
let client: Client | undefined;
let dispose: (() => void) | undefined;
export const recentEvents: LiveEvent[] = [];
let status: 'connecting' | 'live' | 'closed' = 'closed';
const statusListeners = new Set<(s: typeof status) => void>();

function setStatus(s: typeof status) {
  status = s;
  for (const l of statusListeners) l(s);
}

export function liveStatus() {
  return status;
}

export function onLiveStatus(l: (s: typeof status) => void): () => void {
  statusListeners.add(l);
  return () => statusListeners.delete(l);
}

/** One graphql-ws connection per signed-in tab; the session cookie authenticates the upgrade. */
export function startLive(): void {
  if (client) return;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  setStatus('connecting');
  client = createClient({
    url,
    lazy: false,
    retryAttempts: Infinity,
    shouldRetry: () => true,
    on: { connected: () => setStatus('live'), closed: () => setStatus('closed') },
  });
  dispose = client.subscribe<{ events: LiveEvent }>(
    { query: 'subscription { events { id type created data } }' },
    {
      next: ({ data }) => {
        if (!data) return;
        recentEvents.unshift(data.events);
        recentEvents.length = Math.min(recentEvents.length, 200);
        for (const l of listeners) l(data.events);
      },
      error: () => setStatus('closed'),
      complete: () => undefined,
    },
  );
}

export function stopLive(): void {
  dispose?.();
  void client?.dispose();
  client = undefined;
  recentEvents.length = 0;
  setStatus('closed');
}

export function onEvent(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
