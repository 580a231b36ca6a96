import { randomBytes } from 'node:crypto';
import { startTestApp, type ClientApp, type Json, type TestApp } from './app.ts';
import { freePort } from './process.ts';

export const PASSWORD = 'correct horse battery staple';

/**
 * The app on a known port, with PUBLIC_BASE_URL equal to its address: the OAuth issuer,
 * device-flow URIs and the dashboard's origin checks all need the real base URL.
 */
export async function startOAuthApp(overrides: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const port = await freePort();
  return startTestApp({ port, publicBaseUrl: `http://127.0.0.1:${port}`, ...overrides });
}

export interface Holder {
  accountId: string;
  email: string;
  password: string;
}

/** A fresh account with a dashboard password. */
export async function accountHolder(app: ClientApp, opts: { walletBalanceUsdCents?: number } = {}): Promise<Holder> {
  const email = `holder-${randomBytes(4).toString('hex')}@example.com`;
  const r = await app.admin('POST', '/admin/accounts', {
    email,
    name: 'Ada Holder',
    country: 'GB',
    password: PASSWORD,
    walletBalanceUsdCents: opts.walletBalanceUsdCents ?? 50_000,
  });
  if (r.status !== 201) throw new Error(`account: ${r.text}`);
  return { accountId: r.body.id, email, password: PASSWORD };
}

export interface DashboardSession {
  cookie: string;
  csrf: string;
  setCookie: string[];
}

/**
 * One JSON sign-in attempt as the dashboard makes it (GET session for the login CSRF cookie, then
 * POST sign-in), with our Origin unless `headers` say otherwise; the raw answer, read or not.
 */
export async function postSignIn(
  url: string,
  credentials: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<Response> {
  const pre = await fetch(`${url}/dashboard/api/session`);
  const { csrfToken } = await pre.json();
  const loginCookie = pre.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return fetch(`${url}/dashboard/api/sign-in`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Cookie: loginCookie,
      'X-CSRF-Token': csrfToken,
      Origin: url,
      ...headers,
    },
    body: JSON.stringify(credentials),
  });
}

/** Signs in over HTTP as the SPA does: GET session (login CSRF cookie), then POST sign-in. */
export async function signIn(
  app: ClientApp,
  holder: Holder,
  opts: { userAgent?: string } = {},
): Promise<DashboardSession> {
  const res = await postSignIn(app.url, holder, opts.userAgent ? { 'User-Agent': opts.userAgent } : {});
  const body = await res.json();
  if (res.status !== 200) throw new Error(`sign-in ${res.status}: ${JSON.stringify(body)}`);
  const setCookie = res.headers.getSetCookie();
  const session = setCookie.find((c) => c.startsWith('svc_session='))!;
  return { cookie: session.split(';')[0], csrf: body.csrfToken, setCookie };
}

/** A call to /dashboard/api with the session (and, unless told otherwise, its CSRF token and our Origin). */
export async function dashboard(
  app: ClientApp,
  s: DashboardSession,
  method: string,
  path: string,
  body?: unknown,
  opts: { csrf?: string | null; origin?: string } = {},
) {
  const headers: Record<string, string> = { Cookie: s.cookie, Origin: opts.origin ?? app.url };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null) headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${app.url}/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** POST of a form to an OAuth endpoint; returns status and JSON body. */
export async function oauthPost(app: ClientApp, path: string, form: Record<string, string>) {
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, Json> };
}

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Starts a device authorization for `svc-cli` (or another client). */
export async function startDevice(app: ClientApp, scope?: string, clientId = 'svc-cli') {
  const r = await oauthPost(app, '/oauth/device_authorization', { client_id: clientId, ...(scope ? { scope } : {}) });
  if (r.status !== 200) throw new Error(`device_authorization ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
  };
}

export function pollToken(app: ClientApp, deviceCode: string, clientId = 'svc-cli') {
  return oauthPost(app, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
}

/** The whole flow over HTTP: start, approve in the dashboard API (optionally fewer scopes), exchange. */
export async function deviceTokens(app: ClientApp, s: DashboardSession, scope: string, granted?: string[]) {
  const d = await startDevice(app, scope);
  const ok = await dashboard(app, s, 'POST', '/device/approve', {
    userCode: d.user_code,
    ...(granted ? { scopes: granted } : {}),
  });
  if (ok.status !== 200) throw new Error(`approve ${ok.status}: ${JSON.stringify(ok.body)}`);
  const t = await pollToken(app, d.device_code);
  if (t.status !== 200) throw new Error(`token ${t.status}: ${JSON.stringify(t.body)}`);
  return t.body as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    scope: string;
    token_type: string;
  };
}
