import http from 'node:http';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import {
  accountHolder,
  dashboard,
  pollToken,
  signIn,
  startDevice,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import { getAuthorize, pkce, postConsent, registeredClient, type AuthorizeParams } from '../helpers/oauth-code.ts';
import { advance, runningServer } from '../helpers/servers.ts';

// Sessions carry their origin's rights (a session from an SSO link has the link maker's
// scopes and no account-wide rights), account-wide acts need a recent password (sudo mode),
// and wrong passwords from one address do not lock the owner out everywhere.

let app: TestApp;

beforeAll(async () => {
  ensureDashboardBuilt(); // the /sign-in page is the app's index with the form in <noscript>
  app = await startOAuthApp();
});
afterAll(async () => {
  await app?.stop();
});

const STALE_SECONDS = 11 * 60;

/** The keys of the account, read with a fresh password session (listing needs no sudo). */
async function keyIds(s: DashboardSession): Promise<string[]> {
  const r = await dashboard(app, s, 'GET', '/keys');
  expect(r.status).toBe(200);
  return r.body.data.map((k: { id: string }) => k.id).sort();
}

/** Follows a dashboard SSO link as a browser does; the session's CSRF token from GET /session. */
async function ssoSession(key: string, serverId: string): Promise<{ session: DashboardSession; state: Json }> {
  const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key, body: {} });
  expect(link.status, link.text).toBe(200);
  const landed = await fetch(link.body.url, { redirect: 'manual' });
  expect(landed.status).toBe(303);
  const cookie = landed.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))!
    .split(';')[0];
  const state = await (await fetch(`${app.url}/dashboard/api/session`, { headers: { Cookie: cookie } })).json();
  return { session: { cookie, csrf: state.csrfToken, setCookie: [] }, state };
}

/** GraphQL over HTTP with the dashboard session. */
async function sessionGql(s: DashboardSession, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** One operation over graphql-ws with the session cookie (from our origin); resolves with its first result. */
function wsOperation(s: DashboardSession, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
      headers: { Cookie: s.cookie, Origin: app.url },
    });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'connection_ack')
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
      else if (m.type === 'next' || m.type === 'error') {
        resolve(m.type === 'next' ? m.payload : { errors: m.payload });
        ws.close();
      }
    });
    ws.on('close', (code) => reject(new Error(`closed ${code}`)));
    ws.on('error', reject);
  });
}

describe('a session opened from an SSO link carries the link maker’s scopes', () => {
  let holder: Holder;
  let owner: DashboardSession;
  let readKey: { key: string; id: string };
  let serverId: string;

  beforeAll(async () => {
    holder = await accountHolder(app);
    owner = await signIn(app, holder);
    const minted = await dashboard(app, owner, 'POST', '/keys', { name: 'read only', scopes: ['servers:read'] });
    expect(minted.status).toBe(201);
    readKey = minted.body;
    serverId = await runningServer(app, { accountId: holder.accountId, key: readKey.key, keyId: readKey.id });
  });

  it('a servers:read key → serverSso → /sso/:token cannot mint a key, revoke one, or approve a device', async () => {
    const before = await keyIds(owner);
    const { session, state } = await ssoSession(readKey.key, serverId);
    expect(state).toMatchObject({ signedIn: true, passwordSignIn: false, account: { id: holder.accountId } });

    const mint = await dashboard(app, session, 'POST', '/keys', {
      name: 'escalated',
      scopes: ['servers:destroy', 'hosting:manage', 'billing:write'],
    });
    expect(mint.status).toBe(403);
    expect(mint.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
    expect(mint.body.message).toMatch(/sign in with your password/);
    expect(mint.body.key).toBeUndefined();
    const revoke = await dashboard(app, session, 'DELETE', `/keys/${readKey.id}`);
    expect(revoke.status).toBe(403);
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: readKey.key })).status).toBe(200);

    // Typing the password into the link's session does not widen it either.
    const sudo = await dashboard(app, session, 'POST', '/sudo', { password: holder.password });
    expect(sudo.status).toBe(403);
    expect((await dashboard(app, session, 'POST', '/keys', { name: 'escalated' })).status).toBe(403);

    const d = await startDevice(app, 'servers:destroy billing:write');
    const approve = await dashboard(app, session, 'POST', '/device/approve', { userCode: d.user_code });
    expect(approve.status).toBe(403);
    expect((await pollToken(app, d.device_code)).body.error).toBe('authorization_pending');

    expect(await keyIds(owner)).toEqual(before);
    // Nor list the account's keys or connected apps: no scope covers them, so only a password sign-in may.
    for (const path of ['/keys', '/apps']) {
      const list = await dashboard(app, session, 'GET', path);
      expect(list.status, path).toBe(403);
      expect(list.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
      expect(list.body.data).toBeUndefined();
    }

    // The way out is a password sign-in: /sign-in shows its form to the link's session (a
    // password session is sent straight on).
    const signInPage = async (cookie: string) =>
      fetch(`${app.url}/sign-in?next=%2Fkeys`, {
        redirect: 'manual',
        headers: { Cookie: cookie, Accept: 'text/html' },
      });
    const linkPage = await signInPage(session.cookie);
    expect(linkPage.status).toBe(200);
    expect(await linkPage.text()).toMatch(/<input name="password" type="password"/);
    expect((await signInPage(owner.cookie)).status).toBe(303);
  });

  it("the link's session signs in with the password from the app's form: a password session with every right", async () => {
    const { session } = await ssoSession(readKey.key, serverId);
    // The app's form sends the token GET /session gave this session; no login cookie exists.
    const wrong = await dashboard(app, session, 'POST', '/sign-in', { email: holder.email, password: 'not it' });
    expect(wrong.status).toBe(401);
    const noToken = await dashboard(
      app,
      session,
      'POST',
      '/sign-in',
      { email: holder.email, password: holder.password },
      { csrf: null },
    );
    expect(noToken.status).toBe(403);
    const signedIn = await dashboard(app, session, 'POST', '/sign-in', {
      email: holder.email,
      password: holder.password,
    });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c: string) => c.startsWith('svc_session='))!
      .split(';')[0];
    const fresh = { cookie, csrf: signedIn.body.csrfToken, setCookie: [] };
    expect(cookie).not.toBe(session.cookie);
    const keys = await dashboard(app, fresh, 'GET', '/keys');
    expect(keys.status).toBe(200);
    const wallet = await sessionGql(fresh, '{ wallet { balanceUsdCents } }');
    expect(wallet.body.data.wallet.balanceUsdCents).toBeTypeOf('number');
  });

  it('GraphQL through the session (HTTP and graphql-ws) reads servers but cannot power one or read billing', async () => {
    const { session } = await ssoSession(readKey.key, serverId);
    const read = await sessionGql(session, 'query($id: ID!) { server(id: $id) { id status } }', { id: serverId });
    expect(read.body.data.server).toEqual({ id: serverId, status: 'running' });

    const power = await sessionGql(session, 'mutation($id: ID!) { serverPower(id: $id, action: stop) { id status } }', {
      id: serverId,
    });
    expect(power.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(power.body.errors[0].message).toMatch(/servers:write/);
    const wallet = await sessionGql(session, '{ wallet { balanceUsdCents } }');
    expect(wallet.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const wsRead = await wsOperation(session, 'query($id: ID!) { server(id: $id) { id } }', { id: serverId });
    expect(wsRead.data.server.id).toBe(serverId);
    const wsWallet = await wsOperation(session, '{ wallet { balanceUsdCents } }');
    expect(wsWallet.errors[0].extensions.code).toBe('FORBIDDEN');

    // Nothing moved: the server still runs.
    const after = await app.call('GET', `/v1/servers/${serverId}`, { key: readKey.key });
    expect(after.body.status).toBe('running');
  });

  it('a password sign-in keeps every scope on GraphQL', async () => {
    const wallet = await sessionGql(owner, '{ wallet { balanceUsdCents } }');
    expect(wallet.body.data.wallet.balanceUsdCents).toBe(50_000);
  });
});

describe('sudo mode: account-wide acts need the password typed in the last 10 minutes', () => {
  it('a fresh sign-in mints; 11 minutes later minting and revoking answer SUDO_REQUIRED until the password is typed again', async () => {
    const holder = await accountHolder(app);
    const s = await signIn(app, holder);
    const first = await dashboard(app, s, 'POST', '/keys', { name: 'fresh', scopes: ['account:read'] });
    expect(first.status).toBe(201);

    await advance(app, STALE_SECONDS);
    const stale = await dashboard(app, s, 'POST', '/keys', { name: 'stale' });
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe('SUDO_REQUIRED');
    const revoke = await dashboard(app, s, 'DELETE', `/keys/${first.body.id}`);
    expect(revoke.body.code).toBe('SUDO_REQUIRED');
    expect(await keyIds(s)).toEqual([first.body.id]);
    expect((await app.call('GET', '/v1/account', { key: first.body.key })).status).toBe(200);

    const wrong = await dashboard(app, s, 'POST', '/sudo', { password: 'not my password' });
    expect(wrong.status).toBe(401);
    expect((await dashboard(app, s, 'POST', '/keys', { name: 'still stale' })).body.code).toBe('SUDO_REQUIRED');
    expect((await dashboard(app, s, 'POST', '/sudo', { password: holder.password }, { csrf: null })).status).toBe(403);
    expect(await keyIds(s)).toEqual([first.body.id]);

    const ok = await dashboard(app, s, 'POST', '/sudo', { password: holder.password });
    expect(ok.status).toBe(200);
    expect(ok.body.sudo).toBe(true);
    const second = await dashboard(app, s, 'POST', '/keys', { name: 'after sudo', scopes: ['account:read'] });
    expect(second.status).toBe(201);
    expect((await dashboard(app, s, 'DELETE', `/keys/${first.body.id}`)).status).toBe(200);
    expect(await keyIds(s)).toEqual([second.body.id]);
  });

  it('a stale session cannot approve a device (JSON API or plain form) or revoke an app; the form takes the password', async () => {
    const holder = await accountHolder(app);
    const s = await signIn(app, holder);
    await advance(app, STALE_SECONDS);
    const d = await startDevice(app, 'servers:read');

    const json = await dashboard(app, s, 'POST', '/device/approve', { userCode: d.user_code });
    expect(json.status).toBe(403);
    expect(json.body.code).toBe('SUDO_REQUIRED');
    expect((await dashboard(app, s, 'DELETE', '/apps/ogr_none')).body.code).toBe('SUDO_REQUIRED');

    const post = (form: Record<string, string>) =>
      fetch(`${app.url}/oauth/device`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: s.cookie, Origin: app.url },
        body: new URLSearchParams({ csrf: s.csrf, user_code: d.user_code, ...form }).toString(),
      });
    const lookup = await post({ action: 'lookup' });
    expect(await lookup.text()).toMatch(/<input name="password" type="password"/);
    const bare = await post({ action: 'approve', granted: 'servers:read' });
    expect(bare.status).toBe(403);
    expect(await bare.text()).toMatch(/Enter your password/);
    const wrong = await post({ action: 'approve', granted: 'servers:read', password: 'not my password' });
    expect(wrong.status).toBe(401);
    expect((await pollToken(app, d.device_code)).body.error).toBe('authorization_pending');

    const right = await post({ action: 'approve', granted: 'servers:read', password: holder.password });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('Device connected');
    expect((await pollToken(app, d.device_code)).status).toBe(200);
  });

  it('a stale session cannot approve an OAuth consent without the password; a session from a link never can', async () => {
    const holder = await accountHolder(app);
    const s = await signIn(app, holder);
    const client = await registeredClient(app);
    const params: AuthorizeParams = {
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1/callback',
      code_challenge: pkce().challenge,
      scope: 'servers:read',
      state: 'st',
    };
    await advance(app, STALE_SECONDS);

    const page = await getAuthorize(app, params, s);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<input name="password" type="password"/);
    const bare = await postConsent(app, s, params, 'approve');
    expect(bare.status).toBe(403);
    expect(bare.location).toBeNull();
    const wrong = await postConsent(app, s, params, 'approve', undefined, { password: 'not my password' });
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeNull();
    const right = await postConsent(app, s, params, 'approve', undefined, { password: holder.password });
    expect(right.status).toBe(303);
    expect(new URL(right.location!).searchParams.get('code')).toBeTruthy();

    // A session from an SSO link: no consent, password or not.
    const key = await dashboard(app, s, 'POST', '/keys', { name: 'sso', scopes: ['servers:read'] });
    const serverId = await runningServer(app, { accountId: holder.accountId, key: key.body.key, keyId: key.body.id });
    const { session: linked } = await ssoSession(key.body.key, serverId);
    const refused = await postConsent(app, linked, params, 'approve', undefined, { password: holder.password });
    expect(refused.status).toBe(403);
    expect(refused.location).toBeNull();
    expect(refused.html).toMatch(/sign in with your password/);
  });

  it('/sudo counts against the sign-in lockout', async () => {
    const holder = await accountHolder(app);
    const s = await signIn(app, holder); // a success: it clears the count, it does not add to it
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await dashboard(app, s, 'POST', '/sudo', { password: `guess-${i}` })).status);
    expect(statuses.every((x) => x === 401)).toBe(true);
    // Ten failures lock the e-mail from this address, the right password included.
    expect((await dashboard(app, s, 'POST', '/sudo', { password: holder.password })).status).toBe(429);
  });
});

/** An HTTP request to the app sent from a given loopback address (Linux answers on all of 127/8). */
function requestFrom(
  localAddress: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Json }>((resolve, reject) => {
    const req = http.request(`${app.url}${path}`, { method, headers, localAddress }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sign-in over the JSON API from `localAddress`: the login CSRF cookie, then the post. */
async function signInFrom(localAddress: string, email: string, password: string) {
  const pre = await requestFrom(localAddress, 'GET', '/dashboard/api/session', {});
  const cookie = (pre.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const body = JSON.stringify({ email, password });
  return requestFrom(
    localAddress,
    'POST',
    '/dashboard/api/sign-in',
    { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': pre.body.csrfToken, Origin: app.url },
    body,
  );
}

describe('sign-in lockout per (e-mail, client address)', () => {
  it('wrong passwords from one address lock that address out, not the owner signing in from another', async () => {
    const holder = await accountHolder(app);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await signInFrom('127.0.0.2', holder.email, `guess-${i}`)).status);
    expect(statuses.slice(0, 10).every((x) => x === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Even the right password is refused from the guessing address …
    expect((await signInFrom('127.0.0.2', holder.email, holder.password)).status).toBe(429);
    // … while the owner, elsewhere, signs in.
    const owner = await signInFrom('127.0.0.1', holder.email, holder.password);
    expect(owner.status).toBe(200);
    expect(owner.body.signedIn).toBe(true);
  });
});
