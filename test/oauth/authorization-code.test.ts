import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { accountHolder, signIn, startOAuthApp, type DashboardSession } from '../helpers/oauth.ts';
import {
  authorizeRequest,
  exchangeCode,
  getAuthorize,
  mcpPost,
  postConsent,
  REDIRECT,
  register,
  registeredClient,
  type AuthorizeParams,
} from '../helpers/oauth-code.ts';
import { ALL_SCOPES, DEFAULT_SCOPES } from '../../src/scopes.ts';

// Discovery, client registration and the authorization endpoint; the token endpoint's side of
// the code is in authorization-code-tokens.test.ts.
let app: TestApp;
let session: DashboardSession;
/** One registered client for most tests (registrations are rate-limited per address). */
let shared: { client_id: string };

beforeAll(async () => {
  app = await startOAuthApp();
  session = await signIn(app, await accountHolder(app));
  shared = await registeredClient(app);
});
afterAll(async () => {
  await app?.stop();
});

const request = (scope?: string, extra?: Partial<AuthorizeParams>) => authorizeRequest(shared, scope, extra);
const exchange = (clientId: string, code: string, verifier: string) => exchangeCode(app, clientId, code, verifier);

describe('discovery', () => {
  it('serves the protected resource metadata of /mcp (RFC 9728) at both well-known paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(app.url + path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${app.url}/mcp`,
        authorization_servers: [app.url],
        scopes_supported: [...ALL_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
        resource_documentation: `${app.url}/docs`,
      });
    }
    expect(ALL_SCOPES).toHaveLength(18);
  });

  it('authorization server metadata names the authorization code flow, registration and metadata documents', async () => {
    const m = await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json();
    expect(m).toMatchObject({
      issuer: app.url,
      authorization_endpoint: `${app.url}/oauth/authorize`,
      registration_endpoint: `${app.url}/oauth/register`,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(m.grant_types_supported).toContain('authorization_code');
  });

  it('/mcp answers 401 with the resource metadata URL and the scopes to ask for; a refused token adds error="invalid_token"', async () => {
    const anonymous = await mcpPost(app, null, 'tools/list');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPES.join(' ')}"`,
    );
    const bad = await mcpPost(app, `svc_at_${'x'.repeat(40)}`, 'tools/list');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(
      /resource_metadata="[^"]+", scope="[^"]+", error="invalid_token"$/,
    );
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client: 201 with its metadata', async () => {
    const r = await register(app, {
      client_name: 'My host',
      redirect_uris: ['https://host.example/cb', 'http://localhost/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      scope: 'servers:read',
      logo_uri: 'ignored',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      client_id: expect.stringMatching(/^oac_/),
      client_id_issued_at: expect.any(Number),
      client_name: 'My host',
      redirect_uris: ['https://host.example/cb', 'http://localhost/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'servers:read',
    });
  });

  it('refuses bad metadata with invalid_redirect_uri / invalid_client_metadata and registers nothing', async () => {
    const before = await app.running.app.prisma.oAuthClient.count();
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: ['http://host.example/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://host.example/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ client_name: 'x' }, 'invalid_redirect_uri'],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://h.example/${i}`) }, 'invalid_redirect_uri'],
      [{ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], client_name: '' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], client_name: 'x'.repeat(101) }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], scope: 'root' }, 'invalid_client_metadata'],
    ];
    for (const [body, error] of cases) {
      const r = await register(app, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toBe(error);
      expect(r.body.error_description).toEqual(expect.any(String));
    }
    const notJson = await fetch(`${app.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect(notJson.status).toBe(415);
    expect(await app.running.app.prisma.oAuthClient.count()).toBe(before);
  });
});

describe('authorization endpoint', () => {
  it('sends a visitor without a session to the sign-in form, then shows the consent page with the client, its redirect host and the scope picker', async () => {
    const { params } = await request();
    const anonymous = await getAuthorize(app, params);
    expect(anonymous.status).toBe(303);
    const next = new URL(anonymous.location!, app.url);
    expect(next.pathname).toBe('/sign-in');
    expect(next.searchParams.get('next')).toMatch(/^\/oauth\/authorize\?/);
    const consent = await getAuthorize(app, params, session);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('Test MCP host');
    expect(consent.html).toContain('data-testid="redirect-host">127.0.0.1<');
    expect(consent.html).toMatch(/<input type="checkbox" name="granted" value="servers:read" checked>/);
    expect(consent.html).toMatch(/<input type="hidden" name="csrf" value="[^"]+">/);
    expect(consent.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1");
  });

  it('approval redirects with the code, the state unchanged and iss (RFC 9207); the tokens carry the scopes granted', async () => {
    const { client, params, verifier } = await request('servers:read tickets:read');
    const r = await postConsent(app, session, params, 'approve', ['tickets:read']);
    expect(r.status).toBe(303);
    const to = new URL(r.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('state')).toBe('xyz');
    expect(to.searchParams.get('iss')).toBe(app.url);
    const t = await exchange(client.client_id, to.searchParams.get('code')!, verifier);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ token_type: 'Bearer', scope: 'tickets:read', expires_in: 3600 });
    expect(t.body.access_token).toMatch(/^svc_at_/);
    expect(t.body.refresh_token).toMatch(/^svc_rt_/);
  });

  it('a loopback redirect URI matches on any port (RFC 8252 §7.3), nothing else does', async () => {
    const { params } = await request();
    expect(
      (await getAuthorize(app, { ...params, redirect_uri: 'http://127.0.0.1:49152/callback' }, session)).status,
    ).toBe(200);
    for (const uri of [
      'http://127.0.0.1:49152/other',
      'http://localhost/callback',
      'https://127.0.0.1/callback',
      'http://127.0.0.1/callback?x=1',
    ]) {
      const r = await getAuthorize(app, { ...params, redirect_uri: uri }, session);
      expect(r.status, uri).toBe(400);
      expect(r.location, uri).toBeNull();
      expect(r.html).toContain('is not registered');
    }
  });

  it('an unknown client gets an error page, never a redirect', async () => {
    const { params } = await request();
    for (const clientId of ['oac_nope', '']) {
      const r = await getAuthorize(app, { ...params, client_id: clientId }, session);
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.headers.get('content-type')).toMatch(/text\/html/);
    }
  });

  it('other errors go back to the redirect URI with error=, state and iss (RFC 6749 §4.1.2.1) through a page and a click, never an automatic redirect to a self-registered client (RFC 9700 §4.11.2)', async () => {
    const { params } = await request();
    const cases: [Partial<AuthorizeParams>, string][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'servers:read root' }, 'invalid_scope'],
      [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
    ];
    for (const [change, error] of cases) {
      const q = new URLSearchParams({
        response_type: 'code',
        code_challenge_method: 'S256',
        ...params,
        ...change,
      } as Record<string, string>);
      if (change.code_challenge === undefined && 'code_challenge' in change) q.delete('code_challenge');
      const r = await getAuthorize(app, q, session);
      expect(r.status, error).toBe(400);
      expect(r.location).toBeNull();
      const href = /<a href="([^"]+)" data-testid="return-to-client"/
        .exec(r.html)![1]
        .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
      const to = new URL(href);
      expect(to.origin + to.pathname).toBe(REDIRECT);
      expect(to.searchParams.get('error'), JSON.stringify(change)).toBe(error);
      expect(to.searchParams.get('state')).toBe('xyz');
      expect(to.searchParams.get('iss')).toBe(app.url);
    }
  });

  it('deny redirects with error=access_denied and issues nothing', async () => {
    const { params } = await request();
    const before = await app.running.app.prisma.oAuthAuthorizationCode.count();
    const r = await postConsent(app, session, params, 'deny');
    expect(r.status).toBe(303);
    const to = new URL(r.location!);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('xyz');
    expect(to.searchParams.has('code')).toBe(false);
    expect(await app.running.app.prisma.oAuthAuthorizationCode.count()).toBe(before);
  });

  it('a consent post without the CSRF token, or from another origin, is refused 403', async () => {
    const { params } = await request();
    expect((await postConsent(app, session, params, 'approve', undefined, { csrf: null })).status).toBe(403);
    expect((await postConsent(app, session, params, 'approve', undefined, { csrf: 'forged' })).status).toBe(403);
    const form = new URLSearchParams({
      response_type: 'code',
      code_challenge_method: 'S256',
      ...params,
      csrf: session.csrf,
      action: 'approve',
      granted: 'servers:read',
    } as Record<string, string>);
    const foreign = await fetch(`${app.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Cookie: session.cookie,
        Origin: 'https://evil.example',
      },
      body: form.toString(),
    });
    expect(foreign.status).toBe(403);
  });
});

describe('registration limit', () => {
  it('dynamic registration is limited per client address (rate-limit class clientRegistration)', async () => {
    let status = 201;
    let registered = 0;
    for (; registered < 40 && status === 201; registered++)
      status = (await register(app, { redirect_uris: [REDIRECT] })).status;
    expect(status).toBe(429);
    expect(registered).toBeLessThanOrEqual(21);
  });
});
