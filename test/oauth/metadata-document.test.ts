import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { accountHolder, dashboard, signIn, startOAuthApp, type DashboardSession } from '../helpers/oauth.ts';
import { approvedCode, authorizeQuery, getAuthorize, pkce, tokenRequest } from '../helpers/oauth-code.ts';
import { advance } from '../helpers/servers.ts';

/** Documents served by the "client's" web server on loopback: path → answer; fetches counted. */
const documents = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();
const fetches = new Map<string, number>();
let docServer: http.Server;
let docBase: string;

let app: TestApp;
let session: DashboardSession;

beforeAll(async () => {
  docServer = http.createServer((req, res) => {
    const path = req.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const doc = documents.get(path);
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { 'Content-Type': 'application/json', ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
  docBase = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
  // Loopback documents are only reachable with private targets allowed, as for webhooks.
  app = await startOAuthApp({ webhookAllowPrivate: true });
  session = await signIn(app, await accountHolder(app));
});
afterAll(async () => {
  await app?.stop();
  await new Promise<void>((resolve) => docServer.close(() => resolve()));
});

const REDIRECT = 'http://127.0.0.1/callback';

function serve(
  path: string,
  doc: Record<string, unknown> | string,
  opts: { status?: number; headers?: Record<string, string> } = {},
): string {
  const clientId = `${docBase}${path}`;
  const body =
    typeof doc === 'string'
      ? doc
      : JSON.stringify({
          client_id: clientId,
          client_name: 'Metadata host',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
          ...doc,
        });
  documents.set(path, { body, ...opts });
  return clientId;
}

const consent = (clientId: string, redirectUri = REDIRECT) =>
  getAuthorize(
    app,
    {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: pkce().challenge,
      scope: 'servers:read',
      state: 's',
    },
    session,
  );

describe('client ID metadata documents', () => {
  it('a URL client_id is fetched, shown by its client_name, cached, and completes the flow', async () => {
    const clientId = serve('/host.json', {});
    const page = await consent(clientId);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Metadata host');
    expect(await consent(clientId).then((r) => r.status)).toBe(200);
    expect(fetches.get('/host.json')).toBe(1);

    const { verifier, challenge } = pkce();
    const params = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      scope: 'servers:read',
      state: 's',
    };
    const code = await approvedCode(app, session, params);
    const t = await tokenRequest(app, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(t.status).toBe(200);
    expect(t.body.access_token).toMatch(/^svc_at_/);
    const apps = await dashboard(app, session, 'GET', '/apps');
    expect(apps.body.data.find((g: { client: { id: string } }) => g.client.id === clientId)).toMatchObject({
      client: { name: 'Metadata host' },
      redirectHost: '127.0.0.1',
    });
    expect(fetches.get('/host.json')).toBe(1);
  });

  it('respects Cache-Control max-age within bounds (simulated clock)', async () => {
    const clientId = serve('/short.json', {}, { headers: { 'Cache-Control': 'max-age=120' } });
    await consent(clientId);
    await advance(app, 100);
    await consent(clientId);
    expect(fetches.get('/short.json')).toBe(1);
    await advance(app, 30);
    documents.set('/short.json', {
      body: JSON.stringify({ client_id: clientId, client_name: 'Renamed host', redirect_uris: [REDIRECT] }),
    });
    expect((await consent(clientId)).html).toContain('Renamed host');
    expect(fetches.get('/short.json')).toBe(2);
  });

  it('refuses a document that does not name itself, lacks the redirect URI, is not JSON, too large, not 200, or carries a secret: error page, no redirect', async () => {
    const cases: [string, string][] = [
      [serve('/other-id.json', { client_id: 'https://elsewhere.example/client.json' }), 'must name itself'],
      [serve('/secret.json', { client_secret: 'x' }), 'client_secret'],
      [serve('/bad-uri.json', { redirect_uris: ['http://evil.example/cb'] }), 'redirect_uris'],
      [serve('/not-json.json', 'hello'), 'not JSON'],
      [serve('/large.json', { client_name: 'x'.repeat(50), padding: 'x'.repeat(9000) }), 'larger than'],
      [serve('/gone.json', {}, { status: 410 }), 'HTTP 410'],
      [serve('/moved.json', {}, { status: 302, headers: { Location: `${docBase}/host.json` } }), 'HTTP 302'],
      [`${docBase}/missing.json`, 'HTTP 404'],
    ];
    for (const [clientId, why] of cases) {
      const r = await consent(clientId);
      expect(r.status, clientId).toBe(400);
      expect(r.location).toBeNull();
      expect(r.html, clientId).toContain(why);
    }
    const unregistered = await consent(serve('/fine.json', {}), 'http://127.0.0.1/other');
    expect(unregistered.status).toBe(400);
    expect(unregistered.html).toContain('is not registered');
  });

  it('without WEBHOOK_ALLOW_PRIVATE an http or loopback document is never fetched', async () => {
    const strict = await startOAuthApp();
    try {
      const s = await signIn(strict, await accountHolder(strict));
      const before = fetches.get('/host.json');
      for (const clientId of [`${docBase}/host.json`, `https://127.0.0.1:${new URL(docBase).port}/host.json`]) {
        const q = authorizeQuery({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
        const r = await getAuthorize(strict, q, s);
        expect(r.status, clientId).toBe(400);
        expect(r.location).toBeNull();
      }
      expect(fetches.get('/host.json')).toBe(before);
    } finally {
      await strict.stop();
    }
  });
});
