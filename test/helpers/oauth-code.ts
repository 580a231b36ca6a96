import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientApp, Json } from './app.ts';
import type { DashboardSession } from './oauth.ts';

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Dynamic client registration (RFC 7591); returns status and JSON body. */
export async function register(app: ClientApp, metadata: Record<string, unknown>) {
  const res = await fetch(`${app.url}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, Json> };
}

export async function registeredClient(
  app: ClientApp,
  redirectUri = 'http://127.0.0.1/callback',
  name = 'Test MCP host',
) {
  const r = await register(app, {
    client_name: name,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });
  if (r.status !== 201) throw new Error(`register ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as { client_id: string; redirect_uris: string[] };
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  resource?: string;
}

export function authorizeQuery(p: AuthorizeParams): URLSearchParams {
  const q = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...p } as Record<
    string,
    string
  >);
  return q;
}

/** GET /oauth/authorize (redirects not followed), with the session cookie when given. */
export async function getAuthorize(app: ClientApp, p: AuthorizeParams | URLSearchParams, session?: DashboardSession) {
  const q = p instanceof URLSearchParams ? p : authorizeQuery(p);
  const res = await fetch(`${app.url}/oauth/authorize?${q}`, {
    redirect: 'manual',
    headers: session ? { Cookie: session.cookie } : {},
  });
  return { status: res.status, location: res.headers.get('location'), headers: res.headers, html: await res.text() };
}

/** POST of the consent form as a browser sends it (our Origin, the session's CSRF token unless told otherwise). */
export async function postConsent(
  app: ClientApp,
  session: DashboardSession,
  p: AuthorizeParams,
  action: 'approve' | 'deny',
  granted?: string[],
  opts: { csrf?: string | null; password?: string } = {},
) {
  const form = authorizeQuery(p);
  const csrf = opts.csrf === undefined ? session.csrf : opts.csrf;
  if (csrf !== null) form.set('csrf', csrf);
  if (opts.password !== undefined) form.set('password', opts.password);
  form.set('action', action);
  for (const s of granted ?? (p.scope ?? '').split(' ').filter(Boolean)) form.append('granted', s);
  const res = await fetch(`${app.url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: session.cookie, Origin: app.url },
    body: form.toString(),
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

/** Approves on the consent page and returns the code from the redirect. */
export async function approvedCode(
  app: ClientApp,
  session: DashboardSession,
  p: AuthorizeParams,
  granted?: string[],
): Promise<string> {
  const r = await postConsent(app, session, p, 'approve', granted);
  if (r.status !== 303 || !r.location) throw new Error(`consent ${r.status}: ${r.html}`);
  const code = new URL(r.location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${r.location}`);
  return code;
}

export async function tokenRequest(app: ClientApp, form: Record<string, string>) {
  const res = await fetch(`${app.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, Json> };
}

/** The loopback redirect URI registered by `registeredClient` and `codeFlow` unless told otherwise. */
export const REDIRECT = 'http://127.0.0.1/callback';

/** An authorization request of `client` with a fresh PKCE pair, to REDIRECT with state "xyz". */
export function authorizeRequest(
  client: { client_id: string },
  scope = 'servers:read tickets:read',
  extra: Partial<AuthorizeParams> = {},
) {
  const { verifier, challenge } = pkce();
  const params: AuthorizeParams = {
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    scope,
    state: 'xyz',
    ...extra,
  };
  return { client, verifier, params };
}

/** The token request that exchanges a code issued to REDIRECT. */
export const exchangeCode = (
  app: ClientApp,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) =>
  tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...extra,
  });

/** A whole authorization: register, approve, exchange. */
export async function codeFlow(
  app: ClientApp,
  session: DashboardSession,
  opts: { scope: string; resource?: string; granted?: string[]; redirectUri?: string; client?: { client_id: string } },
) {
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1/callback';
  const client = opts.client ?? (await registeredClient(app, redirectUri));
  const { verifier, challenge } = pkce();
  const params: AuthorizeParams = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    scope: opts.scope,
    state: 'st',
    ...(opts.resource ? { resource: opts.resource } : {}),
  };
  const code = await approvedCode(app, session, params, opts.granted);
  const t = await tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  if (t.status !== 200) throw new Error(`token ${t.status}: ${JSON.stringify(t.body)}`);
  return {
    client,
    tokens: t.body as { access_token: string; refresh_token: string; scope: string; expires_in: number },
    params,
    verifier,
    code,
  };
}

/** One JSON-RPC call to /mcp with a Bearer token. */
export async function mcpPost(
  app: ClientApp,
  token: string | null,
  method: string,
  params: Record<string, unknown> = {},
) {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** What the loopback redirect receiver got. */
export interface Callback {
  code: string | null;
  error: string | null;
  state: string | null;
  iss: string | null;
}

/** A native MCP host's redirect receiver: a real HTTP server on 127.0.0.1, any free port (RFC 8252 §7.3). */
export async function redirectReceiver() {
  let deliver!: (c: Callback) => void;
  const received = new Promise<Callback>((resolve) => (deliver = resolve));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<p data-testid="callback-done">You can close this window.</p>');
    deliver({
      code: url.searchParams.get('code'),
      error: url.searchParams.get('error'),
      state: url.searchParams.get('state'),
      iss: url.searchParams.get('iss'),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
