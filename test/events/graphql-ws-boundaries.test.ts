import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { EVENTS_SUBSCRIPTION, rawGraphQLWs, subscribeEvents } from '../helpers/graphql-ws.ts';
import { accountHolder, dashboard, deviceTokens, signIn, startOAuthApp } from '../helpers/oauth.ts';
import { advance, provisionedServers } from '../helpers/webhooks.ts';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/http/graphql/graphql-ws.ts';
import { loadConfig } from '../../src/config.ts';

let app: TestApp;
beforeAll(async () => {
  // Hundreds of operations at once here test the rate budgets: the overload limiters (their own
  // test, test/scale/overload.test.ts) get a queue long enough not to refuse any of them first.
  const defaults = loadConfig({}).overload;
  app = await startTestApp({ overload: { ...defaults, maxQueueWaitMs: 30_000 } });
});
afterAll(() => app?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ACCOUNT = '{ account { id } }';

describe('graphql-ws: every operation spends the credential budget HTTP spends', () => {
  it('300 queries over one socket after HTTP spent the budget: each gets a 429 error in protocol, none gets data, the socket stays open', {
    timeout: 60_000,
  }, async () => {
    const c = await app.customer();
    for (let i = 0; i < 120; i++) expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(429);

    const ws = await rawGraphQLWs(app.url, c.key);
    try {
      for (let i = 0; i < 300; i++) ws.start(`q${i}`, ACCOUNT);
      for (let i = 0; i < 300; i++) await ws.finished(`q${i}`);
      expect(ws.messages.filter((m) => m.type === 'next')).toEqual([]);
      const errors = ws.messages.filter((m) => m.type === 'error');
      expect(errors).toHaveLength(300);
      for (const e of errors) {
        expect(e.payload).toEqual([
          {
            message: expect.stringMatching(/120 requests per minute/),
            extensions: { code: 'RATE_LIMITED', status: 429, retryAfter: expect.any(Number) },
          },
        ]);
      }
      expect(ws.closed).toBeUndefined();
    } finally {
      await ws.close();
    }
  });

  it('queries over the socket spend from the HTTP budget: after 100 of them HTTP has 19 left, and the 21st more is refused', {
    timeout: 60_000,
  }, async () => {
    const c = await app.customer();
    const ws = await rawGraphQLWs(app.url, c.key);
    try {
      for (let i = 0; i < 100; i++) ws.start(`q${i}`, ACCOUNT);
      for (let i = 0; i < 100; i++) await ws.finished(`q${i}`);
      expect(ws.messages.filter((m) => m.type === 'next' && m.payload.data?.account?.id === c.accountId)).toHaveLength(
        100,
      );
      const http = await app.call('GET', '/v1/account', { key: c.key });
      expect(http.headers.get('x-ratelimit-remaining')).toBe('19');
      for (let i = 100; i < 120; i++) ws.start(`q${i}`, ACCOUNT);
      for (let i = 100; i < 120; i++) await ws.finished(`q${i}`);
      ws.start('over', ACCOUNT);
      const [refused] = await ws.finished('over');
      expect(refused).toMatchObject({
        type: 'error',
        payload: [{ extensions: { status: 429, code: 'RATE_LIMITED' } }],
      });
    } finally {
      await ws.close();
    }
  });

  it('30 keys of one account over 30 sockets: the account ceiling (600) answers exactly 600 queries, refuses the rest, and refuses a 31st key over HTTP', {
    timeout: 120_000,
  }, async () => {
    const c = await app.customer();
    const other = await app.customer();
    const keys: string[] = [];
    for (let i = 0; i < 30; i++)
      keys.push(
        (await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] })).body.key,
      );
    const sockets = await Promise.all(keys.map((k) => rawGraphQLWs(app.url, k)));
    try {
      for (const ws of sockets) for (let i = 0; i < 25; i++) ws.start(`q${i}`, ACCOUNT);
      for (const ws of sockets) for (let i = 0; i < 25; i++) await ws.finished(`q${i}`);
      const all = sockets.flatMap((ws) => ws.messages);
      expect(all.filter((m) => m.type === 'next' && m.payload.data?.account?.id === c.accountId)).toHaveLength(600);
      const refused = all.filter((m) => m.type === 'error');
      expect(refused).toHaveLength(150);
      for (const e of refused)
        expect(e.payload[0]).toMatchObject({
          message: expect.stringMatching(/account-wide rate limit .* 600 requests per minute/),
          extensions: { status: 429, code: 'RATE_LIMITED' },
        });

      // A freshly minted key brings no new budget: the account's is spent.
      const fresh = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] });
      const res = await app.call('GET', '/v1/account', { key: fresh.body.key });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({
        statusCode: 429,
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/account-wide/),
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      // The refused request did not spend the fresh key's own budget, and other accounts are untouched.
      expect((await app.running.app.limits.peek('default', fresh.body.id)).remaining).toBe(120);
      const stranger = await app.call('GET', '/v1/account', { key: other.key });
      expect(stranger.status).toBe(200);
      expect(stranger.headers.get('x-ratelimit-remaining')).toBe('119');
    } finally {
      await Promise.all(sockets.map((ws) => ws.close()));
    }
  });
});

describe('graphql-ws: bad documents are answered in protocol', () => {
  it('a malformed document that tries to forge a log line gets an error for its id; the socket stays open; nothing reaches stdout or stderr; the log has no forged line', async () => {
    const c = await app.customer();
    const written: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    const capture = (chunk: unknown) => void written.push(String(chunk));
    // Whatever a caller passes goes on to the original write, unchanged.
    const passOn = (write: typeof out) =>
      ((chunk: unknown, ...rest: unknown[]) => {
        capture(chunk);
        return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
    process.stdout.write = passOn(out);
    process.stderr.write = passOn(err);
    // The test runner routes console.* around process.stdout: watched as well.
    const consoles = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => vi.spyOn(console, name));
    const forged = '\n{"level":30,"msg":"FORGED-admin-login"}\n';
    const ws = await rawGraphQLWs(app.url, c.key);
    try {
      const document = `{ account { id } ${forged} )`;
      ws.start('bad', document);
      const [answer] = await ws.finished('bad');
      // The same error HTTP GraphQL answers for that document.
      const overHttp = await gql(app, document, { key: c.key });
      expect(overHttp.status).toBe(400);
      expect(answer).toEqual({
        id: 'bad',
        type: 'error',
        payload: [
          {
            message: overHttp.body.errors[0].message,
            locations: [expect.any(Object)],
            extensions: { code: overHttp.body.errors[0].extensions.code, status: 400 },
          },
        ],
      });
      expect(answer.payload[0].message).toMatch(/^Syntax Error/);
      expect(JSON.stringify(answer)).not.toMatch(/stack|at \S+ \(/);
      ws.start('unknown', '{ noSuchField }');
      const [invalid] = await ws.finished('unknown');
      expect(invalid).toMatchObject({ type: 'error', payload: [{ extensions: { status: 400 } }] });

      // Still open: the next operation runs.
      ws.start('good', ACCOUNT);
      const good = await ws.finished('good');
      expect(good.map((m) => m.type)).toEqual(['next', 'complete']);
      expect(good[0].payload.data.account.id).toBe(c.accountId);
      expect(ws.closed).toBeUndefined();
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      await ws.close();
    }
    for (const spy of consoles) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
    expect(written.join('')).not.toMatch(/FORGED|Syntax Error/);
    for (const line of app.logs) expect(JSON.parse(line).msg).not.toBe('FORGED-admin-login');
  });
});

describe('graphql-ws: subscriptions per socket', () => {
  it(`the ${MAX_SUBSCRIPTIONS_PER_SOCKET + 1}th open subscription on a socket is refused for its id; completing one frees a place`, async () => {
    const c = await app.customer();
    const ws = await rawGraphQLWs(app.url, c.key);
    try {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) ws.start(`s${i}`, EVENTS_SUBSCRIPTION);
      await sleep(500);
      ws.start('extra', EVENTS_SUBSCRIPTION);
      const [refused] = await ws.finished('extra');
      expect(refused).toMatchObject({
        type: 'error',
        payload: [{ message: expect.stringMatching(/already has 20 open subscriptions/), extensions: { status: 429 } }],
      });
      // The first twenty are still open (no error, no complete).
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) expect(ws.of(`s${i}`)).toEqual([]);

      ws.send({ id: 's0', type: 'complete' });
      await sleep(200);
      ws.start('again', EVENTS_SUBSCRIPTION);
      await sleep(300);
      expect(ws.of('again')).toEqual([]);
      expect(ws.closed).toBeUndefined();
    } finally {
      await ws.close();
    }
  });
});

describe('graphql-ws: a subscription follows its credential', () => {
  it("narrowing the key's scopes stops the subscription: the next event is not delivered", {
    timeout: 30_000,
  }, async () => {
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const reader = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:read'] });
    const sub = await subscribeEvents(app.url, reader.body.key);
    try {
      await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
      await sub.waitFor(1);

      const narrowed = await app.admin('PATCH', `/admin/accounts/${c.accountId}/api-keys/${reader.body.id}`, {
        scopes: ['tickets:read'],
      });
      expect(narrowed.status).toBe(200);
      await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: c.key });
      const until = Date.now() + 5000;
      while (!sub.errors.length && Date.now() < until) await sleep(50);
      await sleep(300);
      expect(sub.events.map((e) => e.data.action)).toEqual(['stop']);
      expect(JSON.stringify(sub.errors)).toMatch(/no longer has the scope \\"servers:read\\"/);
    } finally {
      await sub.dispose();
    }
  });

  it('a revoked key: the next operation on its socket closes it with 4401 and runs nothing', async () => {
    const c = await app.customer();
    const extra = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:read'] });
    const ws = await rawGraphQLWs(app.url, extra.body.key);
    ws.start('before', ACCOUNT);
    expect((await ws.finished('before')).map((m) => m.type)).toEqual(['next', 'complete']);
    expect((await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${extra.body.id}`)).status).toBe(200);
    ws.start('after', ACCOUNT);
    await ws.finished('after');
    expect(ws.of('after').filter((m) => m.type === 'next')).toEqual([]);
    const until = Date.now() + 2000;
    while (!ws.closed && Date.now() < until) await sleep(20);
    expect(ws.closed?.code).toBe(4401);
  });
});

describe('graphql-ws: credentials that end — an OAuth access token expiring on the simulated clock, a dashboard session signed out', () => {
  let oauth: TestApp;
  beforeAll(async () => {
    oauth = await startOAuthApp();
  });
  afterAll(() => oauth?.stop());

  it("an access token's subscription delivers nothing after the token expired and ends with an error", {
    timeout: 30_000,
  }, async () => {
    const holder = await accountHolder(oauth);
    const session = await signIn(oauth, holder);
    const tokens = await deviceTokens(oauth, session, 'servers:read');
    const key = (
      await oauth.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'servers:write'],
      })
    ).body.key;
    const [serverId] = await provisionedServers(oauth, holder.accountId);
    const sub = await subscribeEvents(oauth.url, tokens.access_token);
    try {
      await oauth.call('POST', `/v1/servers/${serverId}/power/stop`, { key });
      await sub.waitFor(1);

      await advance(oauth, tokens.expires_in + 1);
      await oauth.call('POST', `/v1/servers/${serverId}/power/start`, { key });
      const until = Date.now() + 5000;
      while (!sub.errors.length && Date.now() < until) await sleep(50);
      await sleep(300);
      expect(sub.events.map((e) => e.data.action)).toEqual(['stop']);
      expect(JSON.stringify(sub.errors)).toMatch(/revoked or has expired/);
    } finally {
      await sub.dispose();
    }
  });

  it("a dashboard session's subscription delivers nothing once the session is signed out", {
    timeout: 30_000,
  }, async () => {
    const holder = await accountHolder(oauth);
    const session = await signIn(oauth, holder);
    const key = (
      await oauth.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'servers:write'],
      })
    ).body.key;
    const [serverId] = await provisionedServers(oauth, holder.accountId);
    const ws = await rawGraphQLWs(oauth.url, null, { Cookie: session.cookie, Origin: oauth.url });
    try {
      ws.start('events', EVENTS_SUBSCRIPTION);
      await sleep(200);
      await oauth.call('POST', `/v1/servers/${serverId}/power/stop`, { key });
      const until = Date.now() + 5000;
      while (!ws.of('events').length && Date.now() < until) await sleep(20);
      expect(ws.of('events').map((m) => m.payload.data?.events?.data?.action)).toEqual(['stop']);

      expect((await dashboard(oauth, session, 'POST', '/sign-out')).status).toBeLessThan(300);
      await oauth.call('POST', `/v1/servers/${serverId}/power/start`, { key });
      const [, ended] = await ws.finished('events');
      expect(ended).toMatchObject({
        type: 'error',
        payload: [{ message: expect.stringMatching(/revoked or has expired/), extensions: { status: 401 } }],
      });
      expect(ws.of('events').filter((m) => m.type === 'next')).toHaveLength(1);
    } finally {
      await ws.close();
    }
  });
});
