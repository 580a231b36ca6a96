import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';
import { accountHolder, signIn, startOAuthApp, type DashboardSession, type Holder } from '../helpers/oauth.ts';
import { runningServer } from '../helpers/servers.ts';

// The dashboard reaches the declared binary streams (hosting file upload and download, backup
// download) under /dashboard/api/v1/… with its session: cookie + X-CSRF-Token on every method,
// the session's own scopes, the account's own resources, the same error object. A Bearer
// credential is refused there, and the session is still refused on /v1.

let app: TestApp;
let holder: Holder;
let owner: DashboardSession;
let hostingId: string;
let otherHostingId: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  app = await startOAuthApp();
  holder = await accountHolder(app);
  owner = await signIn(app, holder);
  hostingId = await activeHosting(app, { accountId: holder.accountId, key: '', keyId: '' });
  const stranger = await accountHolder(app);
  otherHostingId = await activeHosting(app, { accountId: stranger.accountId, key: '', keyId: '' });
});
afterAll(async () => {
  await app?.stop();
});

const filePath = '/public_html/secure-test.txt';
const downloadPath = (id: string, p = filePath) =>
  `/dashboard/api/v1/hosting/${id}/files/download?path=${encodeURIComponent(p)}`;
const uploadPath = (id: string) => `/dashboard/api/v1/hosting/${id}/files/upload?path=/public_html`;

/** A request to the app with exactly the headers given (a session's cookie and CSRF header, or neither). */
async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: FormData,
): Promise<{ status: number; text: string; json: () => { code?: string; message: string } }> {
  const res = await fetch(`${app.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) };
}

const withSession = (s: DashboardSession, extra: Record<string, string> = {}) => ({
  Cookie: s.cookie,
  'X-CSRF-Token': s.csrf,
  Origin: app.url,
  ...extra,
});

function uploadForm(name: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  return form;
}

/** Follows a server SSO link made with `key` as a browser does; the session's CSRF token from GET /session. */
async function ssoSession(key: string, serverId: string): Promise<DashboardSession> {
  const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key, body: {} });
  expect(link.status, link.text).toBe(200);
  const landed = await fetch(link.body.url, { redirect: 'manual' });
  expect(landed.status).toBe(303);
  const cookie = landed.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))!
    .split(';')[0];
  const state = await (await fetch(`${app.url}/dashboard/api/session`, { headers: { Cookie: cookie } })).json();
  return { cookie, csrf: state.csrfToken, setCookie: [] };
}

describe('the binary streams under /dashboard/api/v1', () => {
  it('a password session uploads and downloads with its cookie and CSRF header', async () => {
    const up = await send('POST', uploadPath(hostingId), withSession(owner), uploadForm('secure-test.txt', 'hello'));
    expect(up.status, up.text).toBe(200);
    expect(up.json()).toMatchObject({ path: filePath, sizeBytes: 5 });
    const down = await send('GET', downloadPath(hostingId), withSession(owner));
    expect(down.status, down.text).toBe(200);
    expect(down.text).toBe('hello');
  });

  it('no cookie → 401, on the download and the upload', async () => {
    const down = await send('GET', downloadPath(hostingId), { 'X-CSRF-Token': owner.csrf });
    expect(down.status).toBe(401);
    expect(down.json().message).toMatch(/Sign in/);
    const up = await send(
      'POST',
      uploadPath(hostingId),
      { 'X-CSRF-Token': owner.csrf, Origin: app.url },
      uploadForm('x.txt', 'x'),
    );
    expect(up.status).toBe(401);
  });

  it('the cookie without the CSRF header (or with a wrong one) → 403, the GET download included', async () => {
    const bare = await send('GET', downloadPath(hostingId), { Cookie: owner.cookie });
    expect(bare.status).toBe(403);
    expect(bare.json().message).toMatch(/CSRF/);
    expect(bare.text).not.toContain('hello');
    const wrong = await send('GET', downloadPath(hostingId), withSession(owner, { 'X-CSRF-Token': 'nope' }));
    expect(wrong.status).toBe(403);
    const up = await send(
      'POST',
      uploadPath(hostingId),
      { Cookie: owner.cookie, Origin: app.url },
      uploadForm('csrf.txt', 'x'),
    );
    expect(up.status).toBe(403);
    expect(fs.existsSync(path.join(siteDir(app, hostingId), 'public_html/csrf.txt'))).toBe(false);
  });

  it('an upload from another origin is refused even with the token', async () => {
    const up = await send(
      'POST',
      uploadPath(hostingId),
      withSession(owner, { Origin: 'https://evil.example' }),
      uploadForm('cross.txt', 'x'),
    );
    expect(up.status).toBe(403);
    expect(up.json().message).toMatch(/Cross-origin/);
  });

  it('another account’s hosting id → 404, exactly like a missing one', async () => {
    const theirs = await send('GET', downloadPath(otherHostingId, '/public_html/index.html'), withSession(owner));
    expect(theirs.status).toBe(404);
    const missing = await send(
      'GET',
      downloadPath('hst_00000000000000000000000000', '/public_html/index.html'),
      withSession(owner),
    );
    expect(missing.status).toBe(404);
    expect(theirs.json().message.replace(otherHostingId, 'ID')).toBe(
      missing.json().message.replace('hst_00000000000000000000000000', 'ID'),
    );
    const up = await send('POST', uploadPath(otherHostingId), withSession(owner), uploadForm('in.txt', 'x'));
    expect(up.status).toBe(404);
  });

  it('an API key as Bearer on the dashboard path is refused; a session on /v1 is refused', async () => {
    const { key } = (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: MANAGE })).body;
    const bearer = await send('GET', downloadPath(hostingId), { Authorization: `Bearer ${key}` });
    expect(bearer.status).toBe(401);
    expect(bearer.json().message).toMatch(/not an Authorization header/);
    // Not even next to a valid session: one credential per path.
    const both = await send('GET', downloadPath(hostingId), withSession(owner, { Authorization: `Bearer ${key}` }));
    expect(both.status).toBe(401);
    const v1 = await send('GET', `/v1/hosting/${hostingId}/files/download?path=${filePath}`, withSession(owner));
    expect(v1.status).toBe(401);
  });

  it('every declared binary route is there: the backup download answers for the backup, not "no route"', async () => {
    const missing = await send(
      'GET',
      `/dashboard/api/v1/hosting/${hostingId}/backups/hbk_missing/download`,
      withSession(owner),
    );
    expect(missing.status).toBe(404);
    expect(missing.json().message).not.toMatch(/No route/);
    const bare = await send('GET', `/dashboard/api/v1/hosting/${hostingId}/backups/hbk_missing/download`, {
      Cookie: owner.cookie,
    });
    expect(bare.status).toBe(403);
  });

  it('only the declared binary routes: a /v1 operation is not served under the dashboard path', async () => {
    const op = await send('GET', `/dashboard/api/v1/hosting/${hostingId}/files?path=/public_html`, withSession(owner));
    expect(op.status).toBe(404);
  });

  it('an SSO-link session has its maker’s scopes: without hosting:manage → 403, with it → 200', async () => {
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['servers:read', 'hosting:read'],
    });
    const serverId = await runningServer(app, { accountId: holder.accountId, key: '', keyId: '' });
    const narrow = await ssoSession(minted.body.key, serverId);
    const down = await send('GET', downloadPath(hostingId), withSession(narrow));
    expect(down.status, down.text).toBe(403);
    expect(down.json().message).toMatch(/hosting:manage/);
    const up = await send('POST', uploadPath(hostingId), withSession(narrow), uploadForm('sso.txt', 'x'));
    expect(up.status).toBe(403);

    const manager = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['servers:read', ...MANAGE],
    });
    const wide = await ssoSession(manager.body.key, serverId);
    const ok = await send('GET', downloadPath(hostingId), withSession(wide));
    expect(ok.status, ok.text).toBe(200);
  });
});
