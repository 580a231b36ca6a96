import { type DocumentNode, print } from '@0no-co/graphql.web';
import type { TadaDocumentNode } from 'gql.tada';
import { createClient, type Client } from 'graphql-ws';
import { humanError } from './error-text.ts';
import { graphql, type ResultOf } from './graphql.ts';

/** The signed-in state, from GET /dashboard/api/session. */
export interface SessionState {
  signedIn: boolean;
  csrfToken: string;
  account?: { id: string; email: string; name: string };
  /** False for a session opened from a sign-in link: it cannot manage keys, apps or devices. */
  passwordSignIn?: boolean;
}

let csrf = '';

/** A refused request; its message in a person's words (error-text.ts: labels for the API's names, dollars for cents). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** The request value at fault (GraphQL's `extensions.field`), so a form can show the error beside it. */
    readonly field?: string,
  ) {
    super(humanError(message, field));
  }
}

/** Asks the holder for their password (sudo mode); null when they cancel. */
export type PasswordPrompt = (message: string) => Promise<string | null>;
let askPassword: PasswordPrompt | null = null;

/** The page's password dialog (src/dashboard/sudo.tsx) registers here. */
export function onPasswordNeeded(prompt: PasswordPrompt): () => void {
  askPassword = prompt;
  return () => {
    if (askPassword === prompt) askPassword = null;
  };
}

export async function loadSession(): Promise<SessionState> {
  const res = await fetch('/dashboard/api/session', {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  const body = (await res.json()) as SessionState;
  csrf = body.csrfToken;
  return body;
}

/** What the dashboard reads of an answer's body itself: a refusal's message and code (the rest is the caller's). */
interface AnswerBody {
  message?: string;
  code?: string;
  /** The request value at fault, for an input error. */
  param?: string;
}

async function dashCall(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ ok: boolean; status: number; data: AnswerBody }> {
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      'X-CSRF-Token': csrf,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { ok: res.ok, status: res.status, data: await res.json().catch(() => ({})) };
}

/**
 * A call to the dashboard's JSON API (/dashboard/api): session cookie + CSRF header. An
 * account-wide act answered SUDO_REQUIRED (password typed over 10 minutes ago) asks for the
 * password, confirms it at /sudo and is sent again; a wrong password asks again.
 */
export async function dash<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  let answer = await dashCall(method, path, body);
  let message: string = answer.data.message ?? '';
  while (!answer.ok && answer.data.code === 'SUDO_REQUIRED' && askPassword) {
    const password = await askPassword(message);
    if (password === null) break;
    const sudo = await dashCall('POST', '/sudo', { password });
    if (sudo.ok) {
      answer = await dashCall(method, path, body);
      message = answer.data.message ?? '';
    } else if (sudo.status === 400 || sudo.status === 401) {
      message = sudo.data.message ?? 'Wrong password.';
    } else {
      answer = sudo;
      break;
    }
  }
  const { data } = answer;
  if (!answer.ok) throw new HttpError(answer.status, data.message ?? `HTTP ${answer.status}`, data.code, data.param);
  if (path === '/sign-in') csrf = (data as SessionState).csrfToken;
  return data as T;
}

type GqlError = { message: string; extensions?: { status?: number; code?: string; field?: string } };

/** A document's text as sent, printed once per document (documents are module constants). */
const texts = new WeakMap<object, string>();
function documentText(document: DocumentNode): string {
  let text = texts.get(document);
  if (text === undefined) {
    text = print(document);
    texts.set(document, text);
  }
  return text;
}

/** A document's variables: required when it declares one that is, optional when it declares none or only optional ones. */
// biome-ignore lint/complexity/noBannedTypes: `{} extends V` holds exactly when V requires no variable.
export type VariablesArg<V> = {} extends V ? [variables?: V] : [variables: V];

async function gqlCall(query: string, variables?: unknown) {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify({ query, variables }),
  });
  const body: { data?: unknown; errors?: GqlError[] } = await res.json().catch(() => ({}));
  return { res, body };
}

/** The app's handler of a session that ended elsewhere (signed out, a password change): main.tsx sets it. */
let sessionEnded: (() => void) | null = null;
export function onSessionEnded(handler: () => void): () => void {
  sessionEnded = handler;
  return () => {
    if (sessionEnded === handler) sessionEnded = null;
  };
}

/**
 * GraphQL over HTTP with the session (the API accepts the cookie only with the CSRF header). An
 * account-wide act answered SUDO_REQUIRED asks for the password and is sent again, as dash()
 * does; a 401 means the session has ended (signed out elsewhere): the app shows the sign-in.
 */
export async function gql<R, V>(document: TadaDocumentNode<R, V>, ...[variables]: VariablesArg<V>): Promise<R> {
  const query = documentText(document);
  let { res, body } = await gqlCall(query, variables);
  let message = body.errors?.[0]?.message ?? '';
  while (body.errors?.[0]?.extensions?.code === 'SUDO_REQUIRED' && askPassword) {
    const password = await askPassword(message);
    if (password === null) break;
    const sudo = await dashCall('POST', '/sudo', { password });
    if (sudo.ok) {
      ({ res, body } = await gqlCall(query, variables));
      message = body.errors?.[0]?.message ?? '';
    } else if (sudo.status === 400 || sudo.status === 401) {
      message = sudo.data.message ?? 'Wrong password.';
    } else {
      throw new HttpError(sudo.status, sudo.data.message ?? `HTTP ${sudo.status}`, sudo.data.code);
    }
  }
  if (res.status === 401) sessionEnded?.();
  if (body.errors?.length) {
    const [{ message: said, extensions: ext }] = body.errors;
    throw new HttpError(ext?.status ?? res.status, said, ext?.code, ext?.field);
  }
  if (!res.ok) throw new HttpError(res.status, `HTTP ${res.status}`);
  return body.data as R;
}

/**
 * A binary stream of the API (hosting file upload and download, backup download) with the
 * session: the server serves the routes it declares for /v1 again under /dashboard/api/v1, for
 * the cookie plus the CSRF header on every method. A refusal is thrown as an HttpError.
 */
export async function binaryCall(method: 'GET' | 'POST', path: string, body?: FormData): Promise<Response> {
  const res = await fetch(`/dashboard/api/v1${path}`, {
    method,
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': csrf },
    body,
  });
  if (!res.ok) {
    // The REST error object names the request value at fault `param`.
    const data: AnswerBody & { param?: string } = await res.json().catch(() => ({}));
    throw new HttpError(res.status, data.message ?? `HTTP ${res.status}`, data.code, data.param);
  }
  return res;
}

/** Saves a binary answer as a file: a blob behind an object URL, clicked through a transient <a download>. */
export async function saveDownload(res: Response, fallbackName: string): Promise<void> {
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  const name = star ? decodeURIComponent(star[1]) : fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The click has handed the blob to the download already; the URL is only needed until then.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---------------------------------------------------------------- live events (graphql-ws)

const EVENTS = graphql('subscription { events { id type created data } }');
const LIVE_CHANGES = graphql('subscription { liveChanges { type data } }');

export type LiveEvent = ResultOf<typeof EVENTS>['events'];

/** What a page hears: an account event, or a live change (a state move no event reports, kept nowhere). */
interface LiveSignal {
  type: string;
  data: Record<string, unknown>;
}

/**
 * What a page hears after its socket came back: anything may have moved while it was away
 * (live changes are kept nowhere), so every live read reads again.
 */
const RECONNECTED: LiveSignal = { type: 'live.reconnected', data: {} };

/** Whether a signal asks a read refreshed on these type prefixes to read again. */
export function refreshes(signal: LiveSignal, prefixes: readonly string[]): boolean {
  return signal === RECONNECTED || prefixes.some((p) => signal.type.startsWith(p));
}

type Listener = (e: LiveSignal) => void;
const listeners = new Set<Listener>();
let client: Client | undefined;
let disposers: (() => void)[] = [];
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

/**
 * One graphql-ws connection per signed-in tab (the session cookie authenticates the upgrade),
 * with two subscriptions: the account's events, and its live changes (a server back to running
 * after a reboot, a webhook delivery attempted), so a page reads again whenever what it shows moved.
 */
function signal(s: LiveSignal): void {
  for (const l of listeners) l(s);
}

export function startLive(): void {
  if (client) return;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  setStatus('connecting');
  client = createClient({
    url,
    lazy: false,
    retryAttempts: Infinity,
    shouldRetry: () => true,
    on: {
      connected: (_socket, _ack, wasRetry) => {
        setStatus('live');
        if (wasRetry) signal(RECONNECTED);
      },
      closed: () => setStatus('closed'),
    },
  });
  disposers = [
    client.subscribe<ResultOf<typeof EVENTS>>(
      { query: documentText(EVENTS) },
      {
        next: ({ data }) => {
          if (!data) return;
          recentEvents.unshift(data.events);
          recentEvents.length = Math.min(recentEvents.length, 200);
          signal(data.events);
        },
        error: () => setStatus('closed'),
        complete: () => undefined,
      },
    ),
    client.subscribe<ResultOf<typeof LIVE_CHANGES>>(
      { query: documentText(LIVE_CHANGES) },
      {
        next: ({ data }) => data && signal(data.liveChanges),
        // A session that can read no change kind has none to hear (its events still come); any
        // other end of it means the page no longer hears everything.
        error: (err) => !refusedForScope(err) && setStatus('closed'),
        complete: () => undefined,
      },
    ),
  ];
}

/** Whether a subscription's error is a refusal for want of a scope (403). */
function refusedForScope(err: unknown): boolean {
  return Array.isArray(err) && err.some((e: GqlError) => e.extensions?.code === 'FORBIDDEN');
}

export function stopLive(): void {
  for (const dispose of disposers) dispose();
  disposers = [];
  void client?.dispose();
  client = undefined;
  recentEvents.length = 0;
  setStatus('closed');
}

export function onEvent(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
