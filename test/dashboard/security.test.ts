import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import {
  accountHolder,
  dashboard,
  signIn,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import { advance, runningServer } from '../helpers/servers.ts';

let app: TestApp;
let holder: Holder;
let session: DashboardSession;

beforeAll(async () => {
  ensureDashboardBuilt();
  app = await startOAuthApp();
  holder = await accountHolder(app);
  session = await signIn(app, holder);
});
afterAll(async () => {
  await app?.stop();
});

/** Opens a graphql-ws connection with the given headers; resolves with the close code, or 'open' once acknowledged. */
function wsConnect(headers: Record<string, string>): Promise<number | 'acked'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') {
        ws.close();
        resolve('acked');
      }
    });
    ws.on('close', (code) => resolve(code));
  });
}

describe('dashboard pages and headers', () => {
  it('serves the app at / and its client-side routes with a CSP without inline scripts, frame-ancestors none, no X-Powered-By', async () => {
    for (const path of ['/', '/keys', '/oauth/device?user_code=ABCD-EFGH', '/servers/srv_x']) {
      const res = await fetch(`${app.url}${path}`, { headers: { Accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('strict-transport-security')).toBeNull(); // http here
      const html = await res.text();
      expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('serves hashed assets as immutable and keeps JSON 404s for API clients', async () => {
    const html = await (await fetch(app.url)).text();
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(app.url + js);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${app.url}/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${app.url}/assets/..%2f..%2fpackage.json`)).status).toBe(404);
    const api = await fetch(`${app.url}/nope`, { headers: { Accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect((await api.json()).statusCode).toBe(404);
  });

  it('sends HSTS and Secure cookies when PUBLIC_BASE_URL is https', async () => {
    const https = await startOAuthApp({ publicBaseUrl: 'https://dashboard.example.com' });
    try {
      const res = await fetch(https.url);
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      const pre = await fetch(`${https.url}/dashboard/api/session`);
      expect(pre.headers.getSetCookie()[0]).toMatch(/; Secure/);
    } finally {
      await https.stop();
    }
  });
});

describe('sign-in, session cookie and CSRF', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over http) with a lifetime', () => {
    const c = session.setCookie.find((x) => x.startsWith('svc_session='))!;
    expect(c).toMatch(/; HttpOnly/);
    expect(c).toMatch(/; SameSite=Lax/);
    expect(c).toMatch(/; Path=\//);
    expect(c).toMatch(/; Max-Age=43200/);
    expect(c).not.toMatch(/Secure/);
  });

  it('refuses a wrong password with one message, and a sign-in post without the CSRF token', async () => {
    const pre = await fetch(`${app.url}/dashboard/api/session`);
    const { csrfToken } = await pre.json();
    const cookie = pre.headers.getSetCookie()[0].split(';')[0];
    const post = (body: object, headers: Record<string, string>) =>
      fetch(`${app.url}/dashboard/api/sign-in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: app.url, ...headers },
        body: JSON.stringify(body),
      });
    const wrong = await post(
      { email: holder.email, password: 'wrong password!' },
      { Cookie: cookie, 'X-CSRF-Token': csrfToken },
    );
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).message).toBe('Wrong e-mail or password.');
    const unknown = await post(
      { email: 'nobody@example.com', password: 'wrong password!' },
      { Cookie: cookie, 'X-CSRF-Token': csrfToken },
    );
    expect((await unknown.json()).message).toBe('Wrong e-mail or password.');
    const noCsrf = await post({ email: holder.email, password: holder.password }, { Cookie: cookie });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.headers.getSetCookie().some((c) => c.startsWith('svc_session='))).toBe(false);
  });

  it('refuses every form post without the CSRF token, with a wrong one, or from another origin', async () => {
    expect((await dashboard(app, session, 'POST', '/keys', { name: 'x' }, { csrf: null })).status).toBe(403);
    expect((await dashboard(app, session, 'POST', '/keys', { name: 'x' }, { csrf: 'forged' })).status).toBe(403);
    expect(
      (await dashboard(app, session, 'POST', '/keys', { name: 'x' }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await dashboard(app, session, 'DELETE', '/apps/ogr_x', undefined, { csrf: null })).status).toBe(403);
    expect(
      (await dashboard(app, session, 'POST', '/device/approve', { userCode: 'CCCC-CCCC' }, { csrf: null })).status,
    ).toBe(403);
    const keys = await dashboard(app, session, 'GET', '/keys');
    expect(keys.body.data).toEqual([]);
  });

  it('rate limits sign-in attempts per e-mail (10 per 15 minutes)', async () => {
    const victim = await accountHolder(app);
    const pre = await fetch(`${app.url}/dashboard/api/session`);
    const { csrfToken } = await pre.json();
    const cookie = pre.headers.getSetCookie()[0].split(';')[0];
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await fetch(`${app.url}/dashboard/api/sign-in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: app.url, Cookie: cookie, 'X-CSRF-Token': csrfToken },
        body: JSON.stringify({ email: victim.email, password: `guess-number-${i}` }),
      });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('mints, lists (by prefix) and revokes API keys; a revoked key is refused at once', async () => {
    const minted = await dashboard(app, session, 'POST', '/keys', { name: 'ci', scopes: ['account:read'] });
    expect(minted.status).toBe(201);
    expect(minted.body.key).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    const list = await dashboard(app, session, 'GET', '/keys');
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: minted.body.id, prefix: minted.body.key.slice(0, 12), scopes: ['account:read'] }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(minted.body.key);
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(200);
    expect((await dashboard(app, session, 'DELETE', `/keys/${minted.body.id}`)).status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(401);
  });

  it('sign-out ends the session on the server', async () => {
    const s = await signIn(app, holder);
    expect((await dashboard(app, s, 'GET', '/keys')).status).toBe(200);
    const out = await dashboard(app, s, 'POST', '/sign-out', {});
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^svc_session=; .*Max-Age=0/);
    expect((await dashboard(app, s, 'GET', '/keys')).status).toBe(401);
  });
});

describe('the session as an API credential', () => {
  it('works on /graphql only with the CSRF header', async () => {
    const query = JSON.stringify({ query: '{ account { id email } }' });
    const withToken = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: session.cookie, 'X-CSRF-Token': session.csrf },
      body: query,
    });
    expect(withToken.status).toBe(200);
    expect((await withToken.json()).data.account.id).toBe(holder.accountId);
    const cookieOnly = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: session.cookie },
      body: query,
    });
    expect(cookieOnly.status).toBe(401);
    // REST does not take the cookie at all.
    expect(
      (await fetch(`${app.url}/v1/account`, { headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf } }))
        .status,
    ).toBe(401);
  });

  it('works on the graphql-ws upgrade only from our own origin (no cross-site WebSocket hijacking)', async () => {
    expect(await wsConnect({ Cookie: session.cookie, Origin: app.url })).toBe('acked');
    expect(await wsConnect({ Cookie: session.cookie, Origin: 'https://evil.example' })).toBe(4401);
    expect(await wsConnect({ Cookie: session.cookie })).toBe(4401);
  });
});

describe('server SSO landing', () => {
  it('signs in once with the link and lands on the server page; a used or expired link shows a page and no session', async () => {
    const minted = await dashboard(app, session, 'POST', '/keys', { name: 'sso', scopes: ['servers:read'] });
    const serverId = await runningServer(app, {
      accountId: holder.accountId,
      key: minted.body.key,
      keyId: minted.body.id,
    });
    const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key: minted.body.key });
    expect(link.status).toBe(200);
    const url = new URL(link.body.url);
    expect(url.origin).toBe(app.url);
    const first = await fetch(link.body.url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/servers/${serverId}`);
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    const s = { cookie: cookie.split(';')[0], csrf: '', setCookie: [] };
    const state = await (await fetch(`${app.url}/dashboard/api/session`, { headers: { Cookie: s.cookie } })).json();
    expect(state).toMatchObject({ signedIn: true, account: { id: holder.accountId } });

    const again = await fetch(link.body.url, { redirect: 'manual' });
    expect(again.status).toBe(410);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(await again.text()).toMatch(/expired or was already used/);
    // The token travels in the path: the access log must not keep it.
    expect(app.logs.join('\n')).not.toContain(url.pathname.split('/')[2]);

    const late = await app.call('POST', `/v1/servers/${serverId}/sso`, { key: minted.body.key });
    await advance(app, 301);
    expect((await fetch(late.body.url, { redirect: 'manual' })).status).toBe(410);
  });
});
