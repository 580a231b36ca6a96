import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import {
  accountHolder,
  dashboard,
  signIn,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import { runningServer } from '../helpers/servers.ts';

// A session opened from a server's SSO link: over /graphql it reads no more account-wide
// credentials than the dashboard's API lets it; and opening a link never silently replaces the
// session of another account (login CSRF).

let app: TestApp;

beforeAll(async () => {
  ensureDashboardBuilt();
  app = await startOAuthApp();
});
afterAll(async () => {
  await app?.stop();
});

interface LinkMaker {
  holder: Holder;
  owner: DashboardSession;
  key: { key: string; id: string };
  serverId: string;
}

/** An account signed in with its password, a key of `scopes` and a running server to make links for. */
async function linkMaker(scopes: string[]): Promise<LinkMaker> {
  const holder = await accountHolder(app);
  const owner = await signIn(app, holder);
  const minted = await dashboard(app, owner, 'POST', '/keys', { name: 'links', scopes });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  const serverId = await runningServer(app, {
    accountId: holder.accountId,
    key: minted.body.key,
    keyId: minted.body.id,
  });
  return { holder, owner, key: minted.body, serverId };
}

/** A fresh SSO link of the maker's server: its URL and token. */
async function ssoLink(m: LinkMaker): Promise<{ url: string; token: string }> {
  const link = await app.call('POST', `/v1/servers/${m.serverId}/sso`, { key: m.key.key, body: {} });
  expect(link.status, link.text).toBe(200);
  return { url: link.body.url, token: /\/sso\/([^?]+)/.exec(link.body.url)![1] };
}

const sessionCookie = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))
    ?.split(';')[0];

/** Follows a link as a browser with `cookie` does. */
const open = (url: string, cookie?: string) =>
  fetch(url, { redirect: 'manual', headers: { Accept: 'text/html', ...(cookie ? { Cookie: cookie } : {}) } });

async function sessionState(cookie: string): Promise<Json> {
  return (await fetch(`${app.url}/dashboard/api/session`, { headers: { Cookie: cookie } })).json();
}

/** The session a link opens in a browser with no session. */
async function linkSession(m: LinkMaker): Promise<DashboardSession> {
  const landed = await open((await ssoLink(m)).url);
  expect(landed.status).toBe(303);
  const cookie = sessionCookie(landed)!;
  return { cookie, csrf: (await sessionState(cookie)).csrfToken, setCookie: [] };
}

async function gql(s: DashboardSession, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Json;
}

const tokenUsed = async (token: string) => {
  const rows = await app.running.app.prisma.ssoToken.findMany({ where: { usedAt: { not: null } } });
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(token).digest('hex');
  return rows.some((r) => r.tokenHash === hash);
};

describe('GraphQL refuses the account-wide reads to a session from an SSO link, as REST does', () => {
  it('apiKeys, connectedApps and node(key_…) answer PASSWORD_SIGN_IN_REQUIRED; a password session reads them', async () => {
    const m = await linkMaker(['servers:read', 'account:read']);
    const linked = await linkSession(m);
    // The REST rule this mirrors.
    const rest = await dashboard(app, linked, 'GET', '/keys');
    expect(rest.status).toBe(403);
    const code = rest.body.code;
    expect(code).toBe('PASSWORD_SIGN_IN_REQUIRED');

    const refused = await gql(linked, '{ account { id apiKeys { id prefix } connectedApps { id } } }');
    expect(refused.data.account.id).toBe(m.holder.accountId);
    expect(refused.data.account.apiKeys).toBeNull();
    expect(refused.data.account.connectedApps).toBeNull();
    const byPath = Object.fromEntries(refused.errors.map((e: Json) => [e.path.join('.'), e]));
    for (const path of ['account.apiKeys', 'account.connectedApps']) {
      expect(byPath[path]?.extensions.code, path).toBe(code);
      expect(byPath[path].message).toBe(rest.body.message);
    }
    const node = await gql(linked, 'query($id: ID!) { node(id: $id) { id ... on ApiKey { prefix } } }', {
      id: m.key.id,
    });
    expect(node.data?.node ?? null).toBeNull();
    expect(node.errors[0].extensions.code).toBe(code);
    expect(JSON.stringify(node)).not.toContain(m.key.key.slice(0, 12));

    // A password sign-in of the same account reads both.
    const allowed = await gql(m.owner, '{ account { apiKeys { id } connectedApps { id } } }');
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data.account.apiKeys.map((k: Json) => k.id)).toContain(m.key.id);
    expect(allowed.data.account.connectedApps).toEqual([]);
    expect((await gql(m.owner, 'query($id: ID!) { node(id: $id) { id } }', { id: m.key.id })).data.node.id).toBe(
      m.key.id,
    );
    // A key with account:read is judged by its scope alone.
    const byKey = await app.call('POST', '/graphql', {
      key: m.key.key,
      body: { query: '{ account { apiKeys { id } } }' },
    });
    expect(byKey.body.data.account.apiKeys.map((k: Json) => k.id)).toContain(m.key.id);
  });
});

describe('an SSO link opened while another account is signed in asks first (login CSRF)', () => {
  it('A signed in opening B’s link keeps A’s session, the token unused, and is asked “Continue as B?”', async () => {
    const a = await accountHolder(app);
    const aSession = await signIn(app, a);
    const b = await linkMaker(['servers:read']);
    const { url, token } = await ssoLink(b);

    const page = await open(url, aSession.cookie);
    expect(page.status).toBe(200);
    expect(sessionCookie(page)).toBeUndefined();
    const html = await page.text();
    expect(html).toContain(`You are signed in as <strong data-testid="current-email">${a.email}</strong>`);
    expect(html).toContain(`Continue as <strong data-testid="link-email">${b.holder.email}</strong>?`);
    expect(html).toMatch(new RegExp(`<form[^>]*method="post" action="/sso/${token}"`));
    expect(html).toContain('<a href="/">Cancel');
    expect(await tokenUsed(token)).toBe(false);
    expect(await sessionState(aSession.cookie)).toMatchObject({ signedIn: true, account: { id: a.accountId } });
    // Opening it again asks again: nothing was spent.
    expect((await open(url, aSession.cookie)).status).toBe(200);

    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      fetch(`${app.url}/sso/${token}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: aSession.cookie, ...headers },
        body: new URLSearchParams(form).toString(),
      });

    // The attack: a foreign page posts the form (even knowing the token), or the token is missing or wrong.
    for (const [headers, form] of [
      [{ Origin: 'https://evil.example' }, { csrf }],
      [{ Origin: app.url }, {}],
      [{ Origin: app.url }, { csrf: 'forged' }],
      [{}, { csrf }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const refused = await post(headers, form);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(sessionCookie(refused)).toBeUndefined();
      expect(await refused.text()).toMatch(/nothing changed/);
    }
    expect(await tokenUsed(token)).toBe(false);
    expect(await sessionState(aSession.cookie)).toMatchObject({ signedIn: true, account: { id: a.accountId } });

    // The person's own "Continue": the link is spent and the browser is B's, A's session ended.
    const switched = await post({ Origin: app.url }, { csrf });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe(`/servers/${b.serverId}`);
    const bCookie = sessionCookie(switched)!;
    expect(await sessionState(bCookie)).toMatchObject({
      signedIn: true,
      passwordSignIn: false,
      account: { id: b.holder.accountId },
    });
    expect(await tokenUsed(token)).toBe(true);
    expect((await sessionState(aSession.cookie)).signedIn).toBe(false);
    // Spent: posting again changes nothing.
    expect((await post({ Origin: app.url }, { csrf })).status).toBe(403);
  });

  it('with no session, or a session of the link’s own account, the link signs in at once', async () => {
    const b = await linkMaker(['servers:read']);
    const fresh = await open((await ssoLink(b)).url);
    expect(fresh.status).toBe(303);
    expect(sessionCookie(fresh)).toBeDefined();

    const { url, token } = await ssoLink(b);
    const same = await open(url, b.owner.cookie);
    expect(same.status).toBe(303);
    expect(await sessionState(sessionCookie(same)!)).toMatchObject({ account: { id: b.holder.accountId } });
    expect(await tokenUsed(token)).toBe(true);
  });
});
