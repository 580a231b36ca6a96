import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import {
  accountHolder,
  deviceTokens,
  type DashboardSession,
  type Holder,
  signIn,
  startOAuthApp,
} from '../helpers/oauth.ts';
import { advance, expectError, runningServer } from '../helpers/servers.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { ALL_SCOPES } from '../../src/scopes.ts';

/**
 * The holder's settings over the API: the profile (keys may change it, the sign-in e-mail only a
 * password session in sudo mode), the password and the signed-in sessions (password sessions only).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startOAuthApp();
});
afterAll(() => app?.stop());

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** GraphQL as the console sends it: the session cookie with its CSRF token. */
async function asSession(s: DashboardSession, query: string, variables?: Record<string, unknown>) {
  return gql(app, query, { variables, headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } });
}

/** A key of the holder's account, as the operator mints it. */
async function keyOf(holder: Holder, scopes: string[]) {
  const r = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes });
  return r.body.key as string;
}

async function alive(s: DashboardSession) {
  const r = await asSession(s, '{ account { id } }');
  return r.status === 200 && !r.body.errors;
}

async function account(holder: Holder) {
  return app.running.app.prisma.account.findUniqueOrThrow({ where: { id: holder.accountId } });
}

const CHANGE_PASSWORD = `mutation($current: String!, $next: String!) {
  accountPasswordChange(currentPassword: $current, newPassword: $next) { changed sessionsEnded } }`;

const errorOf = (r: { body: Json }) => r.body.errors?.[0];

describe('profile: GET and PATCH /account', () => {
  it('changes name, country and invoice e-mail with a key of account:write; only the fields given', async () => {
    const holder = await accountHolder(app);
    const key = await keyOf(holder, ['account:read', 'account:write']);
    const before = await app.call('GET', '/v1/account', { key });
    expect(before.body).toMatchObject({ name: 'Ada Holder', country: 'GB', invoice_email: null });
    const res = await app.call('PATCH', '/v1/account', {
      key,
      body: { name: '  Ada King ', country: 'fr', invoice_email: 'Billing@Example.com' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Ada King',
      country: 'FR',
      invoice_email: 'billing@example.com',
      email: holder.email,
    });
    const cleared = await app.call('PATCH', '/v1/account', { key, body: { invoice_email: '' } });
    expect(cleared.body).toMatchObject({ name: 'Ada King', invoice_email: null });
  });

  it('refuses bad values beside their field and changes nothing', async () => {
    const holder = await accountHolder(app);
    const key = await keyOf(holder, ['account:read', 'account:write']);
    const cases: [Record<string, unknown>, string][] = [
      [{ country: 'Germany' }, 'country'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ invoice_email: 'not-an-address' }, 'invoice_email'],
      [{ email: 'nope' }, 'email'],
      [{ name: null }, 'name'],
    ];
    for (const [body, param] of cases) {
      const res = await app.call('PATCH', '/v1/account', { key, body: { ...body, country: body.country ?? 'DE' } });
      expectError(res, 400);
      expect(res.body.param, JSON.stringify(body)).toBe(param);
    }
    expectError(await app.call('PATCH', '/v1/account', { key, body: {} }), 400, /at least one of/);
    expect(await account(holder)).toMatchObject({ name: 'Ada Holder', country: 'GB', invoiceEmail: null });
    const reader = await keyOf(holder, ['account:read']);
    expectError(await app.call('PATCH', '/v1/account', { key: reader, body: { name: 'X' } }), 403, /account:write/);
  });

  it('changes the sign-in e-mail only from a password session in sudo mode; unique; unverified after', async () => {
    const holder = await accountHolder(app);
    const other = await accountHolder(app);
    const key = await keyOf(holder, ['account:read', 'account:write']);
    const byKey = await app.call('PATCH', '/v1/account', { key, body: { email: 'thief@example.com' } });
    expectError(byKey, 403, /Only the console, signed in with the password/);
    expect(byKey.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
    // The same value as now is no change, so a key may send it.
    expect((await app.call('PATCH', '/v1/account', { key, body: { email: holder.email } })).status).toBe(200);

    const s = await signIn(app, holder);
    const taken = await asSession(s, 'mutation($e: String) { accountUpdate(email: $e) { email } }', {
      e: other.email.toUpperCase(),
    });
    expect(errorOf(taken)).toMatchObject({ extensions: { code: 'EMAIL_TAKEN', field: 'email' } });
    const moved = await asSession(
      s,
      'mutation { accountUpdate(email: "New.Ada@Example.com") { email emailVerified } }',
    );
    expect(moved.body.data.accountUpdate).toEqual({ email: 'new.ada@example.com', emailVerified: false });
    await signIn(app, { ...holder, email: 'new.ada@example.com' });

    await advance(app, 11 * 60);
    const stale = await asSession(s, 'mutation { accountUpdate(email: "later@example.com") { email } }');
    expect(errorOf(stale)).toMatchObject({ extensions: { code: 'SUDO_REQUIRED' } });
    expect((await account(holder)).email).toBe('new.ada@example.com');
  });
});

describe('password: POST /account/password', () => {
  it('is refused to API keys, OAuth tokens and sessions from a sign-in link (403), changing nothing', async () => {
    const holder = await accountHolder(app);
    const key = await keyOf(holder, ['account:read', 'account:write', 'servers:read']);
    const body = { current_password: holder.password, new_password: 'a brand new passphrase' };
    const byKey = await app.call('POST', '/v1/account/password', { key, body });
    expectError(byKey, 403, /API keys and OAuth tokens cannot/);
    expect(byKey.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');

    const s = await signIn(app, holder);
    const token = await deviceTokens(app, s, 'account:read account:write');
    const byToken = await app.call('POST', '/v1/account/password', { key: token.access_token, body });
    expect(byToken.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');

    const serverId = await runningServer(app, { accountId: holder.accountId, key, keyId: '' });
    const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key, body: {} });
    const landed = await fetch(link.body.url, { redirect: 'manual' });
    const cookie = landed.headers.getSetCookie()[0].split(';')[0];
    const csrf = (await (await fetch(`${app.url}/dashboard/api/session`, { headers: { Cookie: cookie } })).json())
      .csrfToken;
    const byLink = await asSession({ cookie, csrf, setCookie: [] }, CHANGE_PASSWORD, {
      current: holder.password,
      next: 'a brand new passphrase',
    });
    expect(errorOf(byLink)).toMatchObject({ extensions: { code: 'PASSWORD_SIGN_IN_REQUIRED' } });
    expect(errorOf(byLink).message).toMatch(/sign-in link/);

    // MCP does not offer it at all.
    const catalogue = JSON.parse(fs.readFileSync(new URL('../../schema/mcp-tools.json', import.meta.url), 'utf8'));
    expect(catalogue.notTools.map((t: Json) => t.operation)).toEqual(
      expect.arrayContaining(['POST /account/password', 'GET /account/sessions', 'DELETE /account/sessions/:id']),
    );
    expect(JSON.stringify(catalogue.tools)).not.toMatch(/account_password_change|account_session/);
    expect(await alive(s)).toBe(true);
    await signIn(app, holder);
  });

  it('refuses a wrong current password and a short new one, beside the field; nothing changes', async () => {
    const holder = await accountHolder(app);
    const a = await signIn(app, holder);
    const b = await signIn(app, holder);
    const wrong = await asSession(a, CHANGE_PASSWORD, { current: 'not my password', next: 'a brand new passphrase' });
    expect(errorOf(wrong)).toMatchObject({
      message: 'The current password is wrong.',
      extensions: { code: 'BAD_REQUEST', field: 'currentPassword' },
    });
    const short = await asSession(a, CHANGE_PASSWORD, { current: holder.password, next: 'short' });
    expect(errorOf(short)).toMatchObject({ extensions: { field: 'newPassword' } });
    expect(errorOf(short).message).toMatch(/newPassword must be 10 to 200 characters/);
    const same = await asSession(a, CHANGE_PASSWORD, { current: holder.password, next: holder.password });
    expect(errorOf(same)).toMatchObject({ extensions: { field: 'newPassword' } });
    expect(await alive(b)).toBe(true);
    await signIn(app, holder);
  });

  it('changes it and ends every other session of the account at once; this one and keys stay', async () => {
    const holder = await accountHolder(app);
    const bystander = await accountHolder(app);
    const key = await keyOf(holder, ['account:read']);
    const theirs = await signIn(app, bystander);
    const a = await signIn(app, holder);
    const b = await signIn(app, holder);
    const c = await signIn(app, holder);
    const res = await asSession(a, CHANGE_PASSWORD, { current: holder.password, next: 'a brand new passphrase' });
    expect(res.body).toEqual({ data: { accountPasswordChange: { changed: true, sessionsEnded: 2 } } });
    expect(await alive(a)).toBe(true);
    expect(await alive(b)).toBe(false);
    expect(await alive(c)).toBe(false);
    expect(await alive(theirs)).toBe(true);
    expect((await app.call('GET', '/v1/account', { key })).status).toBe(200);
    await expect(signIn(app, holder)).rejects.toThrow(/401/);
    await signIn(app, { ...holder, password: 'a brand new passphrase' });
    // The password was just typed: account-wide acts need no new confirmation.
    const ended = await asSession(a, 'mutation { accountSessionsEndOthers { sessionsEnded } }');
    expect(ended.body.data.accountSessionsEndOthers.sessionsEnded).toBe(1);
  });
});

const SESSIONS = `{ accountSessions { edges { node { id current signedInWith browser clientAddress createdAt lastSeenAt expiresAt } } } }`;

describe("operations declared `caller: 'password session'`", () => {
  it('answer a key with every scope 403 PASSWORD_SIGN_IN_REQUIRED and change nothing (from the metadata)', async () => {
    const ops = listOperations(restView(getSchema())).filter((op) => op.meta.caller === 'password session');
    expect(ops.map((op) => op.meta.rest).sort()).toEqual([
      'DELETE /account/sessions/:id',
      'GET /account/sessions',
      'POST /account/password',
      'POST /account/sessions/end-others',
    ]);
    const holder = await accountHolder(app);
    const s = await signIn(app, holder);
    const key = await keyOf(holder, [...ALL_SCOPES]);
    const [own] = (await asSession(s, SESSIONS)).body.data.accountSessions.edges.map((e: Json) => e.node.id);
    for (const op of ops) {
      const path = op.path.replace(':id', own);
      const password = { current_password: holder.password, new_password: 'x'.repeat(12) };
      const body = op.path.endsWith('/password') ? password : op.method === 'POST' ? {} : undefined;
      const res = await app.call(op.method, `/v1${path}`, { key, body });
      expect(res.status, op.meta.rest).toBe(403);
      expect(res.body.code, op.meta.rest).toBe('PASSWORD_SIGN_IN_REQUIRED');
      expect(op.meta.notTool, op.meta.rest).toBeTruthy();
    }
    expect(await alive(s)).toBe(true);
    await signIn(app, holder);
  });
});

describe('sessions: GET /account/sessions, DELETE /account/sessions/:id, POST /account/sessions/end-others', () => {
  it('lists the live sessions, this one marked, with browser and address and no secret', async () => {
    const holder = await accountHolder(app);
    const phone = await signIn(app, holder, { userAgent: FIREFOX });
    const mine = await signIn(app, holder);
    await advance(app, 120);
    await asSession(phone, '{ account { id } }');
    const res = await asSession(mine, SESSIONS);
    const nodes = res.body.data.accountSessions.edges.map((e: Json) => e.node);
    expect(nodes).toHaveLength(2);
    expect(nodes[0]).toMatchObject({ current: true, signedInWith: 'password', clientAddress: '127.0.0.1' });
    expect(nodes[1]).toMatchObject({ current: false, browser: 'Firefox 133 on Windows' });
    expect(Date.parse(nodes[1].lastSeenAt)).toBeGreaterThan(Date.parse(nodes[1].createdAt));
    const raw = JSON.stringify(res.body);
    for (const secret of [phone.cookie, mine.cookie, phone.csrf].map((v) => v.replace(/^svc_session=/, '')))
      expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/tokenHash|token_hash/);

    const key = await keyOf(holder, ['account:read', 'account:write']);
    const byKey = await app.call('GET', '/v1/account/sessions', { key });
    expectError(byKey, 403);
    expect(byKey.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
  });

  it('ends one other session (on the next request), never its own, never another account’s', async () => {
    const holder = await accountHolder(app);
    const stranger = await accountHolder(app);
    const a = await signIn(app, holder);
    const b = await signIn(app, holder);
    const theirs = await signIn(app, stranger);
    const list = async (s: DashboardSession) =>
      (await asSession(s, SESSIONS)).body.data.accountSessions.edges.map((e: Json) => e.node);
    const [bId, aId] = (await list(a)).map((n: Json) => n.id);
    const [theirId] = (await list(theirs)).map((n: Json) => n.id);
    const end = (id: string) =>
      asSession(a, 'mutation($id: ID!) { accountSessionEnd(id: $id) { id deleted } }', { id });
    expect(errorOf(await end(theirId))).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect(await alive(theirs)).toBe(true);
    expect(errorOf(await end(aId)).message).toMatch(/sign out instead/);
    expect((await end(bId)).body.data.accountSessionEnd).toEqual({ id: bId, deleted: true });
    expect(await alive(b)).toBe(false);
    expect(await alive(a)).toBe(true);

    const key = await keyOf(holder, ['account:read', 'account:write']);
    const byKey = await app.call('DELETE', `/v1/account/sessions/${aId}`, { key });
    expect(byKey.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
    const allByKey = await app.call('POST', '/v1/account/sessions/end-others', { key, body: {} });
    expect(allByKey.body.code).toBe('PASSWORD_SIGN_IN_REQUIRED');
    expect(await alive(a)).toBe(true);
  });

  it('asks for the password again after the sudo window before ending sessions', async () => {
    const holder = await accountHolder(app);
    const a = await signIn(app, holder);
    const b = await signIn(app, holder);
    await advance(app, 11 * 60);
    const stale = await asSession(a, 'mutation { accountSessionsEndOthers { sessionsEnded } }');
    expect(errorOf(stale)).toMatchObject({ extensions: { code: 'SUDO_REQUIRED' } });
    expect(await alive(b)).toBe(true);
    const sudo = await fetch(`${app.url}/dashboard/api/sudo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: a.cookie, 'X-CSRF-Token': a.csrf, Origin: app.url },
      body: JSON.stringify({ password: holder.password }),
    });
    expect(sudo.status).toBe(200);
    const ended = await asSession(a, 'mutation { accountSessionsEndOthers { sessionsEnded } }');
    expect(ended.body.data.accountSessionsEndOthers.sessionsEnded).toBe(1);
    expect(await alive(b)).toBe(false);
  });
});
