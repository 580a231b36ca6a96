import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { TrustedProxies } from '../../src/trusted-proxies.ts';
import type { TestApp } from '../helpers/app.ts';
import { pkce } from '../helpers/oauth-code.ts';
import { startOAuthApp } from '../helpers/oauth.ts';

/**
 * `/oauth/authorize?client_id=<URL>` makes the service fetch that URL before anyone signs in
 * (client ID metadata documents). The attack: use it as a fetch reflector. Each fetch that will
 * happen counts per client address (30 per 15 minutes; a cached client costs nothing), at most
 * 8 are in flight per instance, and none holds a slot of the instance while it waits. The app believes X-Forwarded-For from 127.0.0.1 (TRUST_PROXY), so
 * each case here is its own client address.
 */
const REDIRECT = 'http://127.0.0.1/callback';
const LIMIT = 30;
const AT_ONCE = 8;
/** The instance's slots (OVERLOAD_MAX_IN_FLIGHT), fewer than the fetches at once. */
const SLOTS = 4;

/** Every path the "client's" web server was asked for, in order. */
const fetched: string[] = [];
/** Responses of /slow/… held until the test lets them go. */
const held: http.ServerResponse[] = [];
let docServer: http.Server;
let docBase: string;
let app: TestApp;

beforeAll(async () => {
  docServer = http.createServer((req, res) => {
    const path = req.url ?? '/';
    fetched.push(path);
    if (path.startsWith('/slow/')) return void held.push(res);
    const clientId = `${docBase}${path}`;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        client_id: clientId,
        client_name: 'Reflector',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
  docBase = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
  app = await startOAuthApp({
    webhookAllowPrivate: true,
    trustProxy: TrustedProxies.parse('127.0.0.1'),
    // Fewer slots than fetches at once: a fetch waits without its slot.
    overload: { ...loadConfig({}).overload, maxInFlight: SLOTS, maxQueueWaitMs: 2000 },
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await app?.stop();
  await new Promise<void>((resolve) => docServer.close(() => resolve()));
});

/** GET /oauth/authorize for the client at `path` of the document server, from the forwarded client `from`. */
async function authorize(path: string, from: string) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: `${docBase}${path}`,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    scope: 'servers:read',
    state: 's',
  });
  const res = await fetch(`${app.url}/oauth/authorize?${query}`, {
    redirect: 'manual',
    headers: { 'X-Forwarded-For': from },
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

describe('client metadata document fetches', () => {
  it(`past ${LIMIT} fetches from one address: a 429 page with Retry-After, and no fetch happens`, async () => {
    const from = '203.0.113.10';
    for (let i = 0; i < LIMIT; i++) {
      // A known client: on to the sign-in form.
      const r = await authorize(`/doc/${i}.json`, from);
      expect(r.status, `fetch ${i}`).toBe(303);
    }
    expect(fetched.filter((p) => p.startsWith('/doc/'))).toHaveLength(LIMIT);

    const refused = await authorize('/doc/one-too-many.json', from);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/text\/html/);
    expect(refused.html).toContain('Too many attempts');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(fetched).not.toContain('/doc/one-too-many.json');

    // A cached client costs nothing: it is served without a fetch, past the limit.
    const cached = await authorize('/doc/0.json', from);
    expect(cached.status).toBe(303);
    expect(fetched.filter((p) => p === '/doc/0.json')).toHaveLength(1);

    // Another client address has its own count.
    expect((await authorize('/doc/other-address.json', '203.0.113.11')).status).toBe(303);
    expect(fetched).toContain('/doc/other-address.json');
  });

  it(`with ${AT_ONCE} fetches in flight, one more is refused with 503 and Retry-After before any fetch`, async () => {
    const pending = Array.from({ length: AT_ONCE }, (_, i) => authorize(`/slow/${i}.json`, `198.51.100.${i + 1}`));
    for (let waited = 0; held.length < AT_ONCE && waited < 10_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(AT_ONCE);
    // The fetches wait on the client's server, not on this instance: they hold none of its
    // slots, so it goes on serving everyone else.
    expect((await (await fetch(`${app.url}/readyz`)).json()).load).toMatchObject({ inFlight: 0 });
    const c = await app.customer();
    expect((await app.call('GET', '/v1/account', { key: c.key })).status).toBe(200);

    const refused = await authorize('/slow/one-more.json', '198.51.100.100');
    expect(refused.status).toBe(503);
    expect(refused.html).toContain('Too many client metadata documents');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(fetched).not.toContain('/slow/one-more.json');
    // The token endpoint refuses the same way, in OAuth's error shape.
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '198.51.100.101' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: `${docBase}/slow/token.json`,
        refresh_token: 'svc_rt_x',
      }),
    });
    expect(token.status).toBe(503);
    expect((await token.json()).error).toBe('temporarily_unavailable');
    expect(fetched).not.toContain('/slow/token.json');

    // The held fetches end (the documents are missing): the slots are free again.
    for (const res of held.splice(0)) res.writeHead(404).end();
    for (const r of await Promise.all(pending)) expect(r.status).toBe(400);
    expect((await authorize('/doc/after.json', '198.51.100.100')).status).toBe(303);
  });
});
