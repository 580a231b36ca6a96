import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { accountHolder, type Holder, postSignIn } from '../helpers/oauth.ts';
import { freePort } from '../helpers/process.ts';

/**
 * Same-origin checks (dashboard writes, form posts, the graphql-ws upgrade, /mcp) compare the
 * Origin with PUBLIC_BASE_URL's origin, never with the Host header, which the client writes
 * (docs/REFERENCE.md: Same origin). The attack: a page on a name the attacker controls (DNS
 * rebinding, or a request with a forged Host) sends Origin = http://<its Host>. /mcp checks the
 * Host header too: the public origin's host or a loopback name, nothing else.
 */

interface Raw {
  status: number;
  body: string;
}

/** A request to the app's socket with exactly these headers (Host included). */
function raw(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Signs in over the JSON API with the given Origin; the session cookie and CSRF token. */
async function signInFrom(app: TestApp, holder: Holder, origin: string) {
  const res = await postSignIn(app.url, holder, { Origin: origin });
  const body = await res.json();
  expect(res.status).toBe(200);
  const session = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))!
    .split(';')[0];
  return { cookie: session, csrf: body.csrfToken as string };
}

/** tools/list on /mcp with exactly these Host and Origin headers (none when undefined): the status. */
async function mcpStatus(app: TestApp, key: string, host: string, origin?: string): Promise<number> {
  const res = await raw(
    app,
    'POST',
    '/mcp',
    {
      Host: host,
      ...(origin === undefined ? {} : { Origin: origin }),
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  );
  if (res.status === 403) expect(JSON.parse(res.body)).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  return res.status;
}

describe('PUBLIC_BASE_URL https://api.example.test: the Host header never makes an origin ours', () => {
  const PUBLIC = 'https://api.example.test';
  let app: TestApp;
  let port: number;
  let holder: Holder;
  beforeAll(async () => {
    port = await freePort();
    app = await startTestApp({ port, publicBaseUrl: PUBLIC });
    holder = await accountHolder(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('a key mint with Origin = http(s)://<forged Host> is refused 403 and no key exists', async () => {
    const s = await signInFrom(app, holder, PUBLIC);
    const mint = (host: string, origin: string) =>
      raw(
        app,
        'POST',
        '/dashboard/api/keys',
        {
          Host: host,
          Origin: origin,
          Cookie: s.cookie,
          'X-CSRF-Token': s.csrf,
          'Content-Type': 'application/json',
        },
        JSON.stringify({ name: 'planted', scopes: ['account:read'] }),
      );
    for (const [host, origin] of [
      [`evil.example:${port}`, `http://evil.example:${port}`],
      ['evil.example', 'https://evil.example'],
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
    ]) {
      const refused = await mint(host, origin);
      expect(refused.status, origin).toBe(403);
      expect(JSON.parse(refused.body).message).toBe('Cross-origin request refused.');
    }
    const keys = await raw(app, 'GET', '/dashboard/api/keys', { Cookie: s.cookie, 'X-CSRF-Token': s.csrf });
    expect(JSON.parse(keys.body).data).toEqual([]);
    // The same request from the public origin is served: the refusal was the Origin's alone.
    expect((await mint(`evil.example:${port}`, PUBLIC)).status).toBe(201);
  });

  it('a sign-in form post and an MCP call with Origin = https://<forged Host> are refused', async () => {
    const token = 'A'.repeat(43);
    const formFrom = (origin: string) =>
      raw(
        app,
        'POST',
        '/sign-in',
        {
          Host: 'evil.example',
          Origin: origin,
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: `svc_csrf=${token}`,
        },
        new URLSearchParams({ csrf: token, email: holder.email, password: holder.password }).toString(),
      );
    const form = await formFrom('https://evil.example');
    expect(form.status).toBe(403);
    expect(form.body).toContain('did not come from this site');
    // From the public origin the same post signs in (303 on to the dashboard).
    expect((await formFrom(PUBLIC)).status).toBe(303);
    const customer = await app.customer({ scopes: ['account:read'] });
    const mcp = await raw(
      app,
      'POST',
      '/mcp',
      {
        Host: 'evil.example',
        Origin: 'https://evil.example',
        Authorization: `Bearer ${customer.key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    );
    expect(mcp.status).toBe(403);
  });

  it('/mcp takes a Host naming the public origin or loopback; an Origin of a loopback page only at a loopback Host', async () => {
    const { key } = await app.customer({ scopes: ['account:read'] });
    // DNS rebinding: the attacker's name as Host, with or without its Origin, or with ours.
    expect(await mcpStatus(app, key, 'evil.example.com', 'http://evil.example.com')).toBe(403);
    expect(await mcpStatus(app, key, 'evil.example.com')).toBe(403);
    expect(await mcpStatus(app, key, `evil.example.com:${port}`, PUBLIC)).toBe(403);
    expect(await mcpStatus(app, key, 'api.example.test@evil.example.com')).toBe(403);
    // The public host (any port: a proxy may write one), as a proxy forwards it.
    expect(await mcpStatus(app, key, 'api.example.test')).toBe(200);
    expect(await mcpStatus(app, key, 'api.example.test:443', PUBLIC)).toBe(200);
    // A loopback page's Origin is refused at the public host, served at a loopback one.
    expect(await mcpStatus(app, key, 'api.example.test', 'http://localhost:6274')).toBe(403);
    expect(await mcpStatus(app, key, `127.0.0.1:${port}`, 'http://localhost:6274')).toBe(200);
    expect(await mcpStatus(app, key, `[::1]:${port}`, PUBLIC)).toBe(200);
  });
});

describe('PUBLIC_BASE_URL on loopback (development): loopback origins of our port, nothing else', () => {
  let app: TestApp;
  let port: number;
  let holder: Holder;
  beforeAll(async () => {
    port = await freePort();
    app = await startTestApp({ port, publicBaseUrl: `http://127.0.0.1:${port}` });
    holder = await accountHolder(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('http://localhost:<port> and http://[::1]:<port> are ours; a rebound name or another port is not', async () => {
    const s = await signInFrom(app, holder, `http://localhost:${port}`);
    const signOutFrom = (host: string, origin: string) =>
      raw(app, 'POST', '/dashboard/api/sign-out', {
        Host: host,
        Origin: origin,
        Cookie: s.cookie,
        'X-CSRF-Token': s.csrf,
        'Content-Type': 'application/json',
      });
    expect((await signOutFrom(`evil.example:${port}`, `http://evil.example:${port}`)).status).toBe(403);
    expect((await signOutFrom(`127.0.0.1:${port + 1}`, `http://127.0.0.1:${port + 1}`)).status).toBe(403);
    expect((await signOutFrom(`localhost:${port}`, `https://localhost:${port}`)).status).toBe(403);
    // Still signed in: none of them changed anything.
    expect((await raw(app, 'GET', '/dashboard/api/keys', { Cookie: s.cookie, 'X-CSRF-Token': s.csrf })).status).toBe(
      200,
    );
    expect((await signOutFrom(`[::1]:${port}`, `http://[::1]:${port}`)).status).toBe(200);
    expect((await raw(app, 'GET', '/dashboard/api/keys', { Cookie: s.cookie, 'X-CSRF-Token': s.csrf })).status).toBe(
      401,
    );
  });

  it("/mcp: the conformance suite's rebinding checks, with a key", async () => {
    const { key } = await app.customer({ scopes: ['account:read'] });
    expect(await mcpStatus(app, key, 'evil.example.com', 'http://evil.example.com')).toBe(403);
    expect(await mcpStatus(app, key, `evil.example.com:${port}`)).toBe(403);
    expect(await mcpStatus(app, key, `127.0.0.1:${port}`, `http://127.0.0.1:${port}`)).toBe(200);
    expect(await mcpStatus(app, key, `localhost:${port}`, 'https://localhost:6274')).toBe(200);
  });
});
