import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';
import {
  accountHolder,
  dashboard,
  oauthPost,
  signIn,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import {
  approvedCode,
  codeFlow,
  getAuthorize,
  mcpPost,
  pkce,
  postConsent,
  register,
  registeredClient,
  tokenRequest,
  type AuthorizeParams,
} from '../helpers/oauth-code.ts';
import { advance } from '../helpers/servers.ts';
import { ALL_SCOPES, DEFAULT_SCOPES } from '../../src/scopes.ts';

let app: TestApp;
let holder: Holder;
let session: DashboardSession;
/** One registered client for most tests (registrations are rate-limited per address). */
let shared: { client_id: string };

beforeAll(async () => {
  app = await startOAuthApp();
  holder = await accountHolder(app);
  session = await signIn(app, holder);
  shared = await registeredClient(app);
});
afterAll(async () => {
  await app?.stop();
});

const REDIRECT = 'http://127.0.0.1/callback';

async function request(scope = 'servers:read tickets:read', extra: Partial<AuthorizeParams> = {}) {
  const client = shared;
  const { verifier, challenge } = pkce();
  const params: AuthorizeParams = {
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    scope,
    state: 'xyz',
    ...extra,
  };
  return { client, verifier, params };
}

const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...extra,
  });

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
    expect(ALL_SCOPES).toHaveLength(17);
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

describe('token endpoint: authorization_code', () => {
  it('a wrong verifier burns the code: the right one then fails too', async () => {
    const { client, params, verifier } = await request();
    const code = await approvedCode(app, session, params);
    const wrong = await exchange(client.client_id, code, pkce().verifier);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await exchange(client.client_id, code, verifier)).body.error).toBe('invalid_grant');
  });

  it('a wrong redirect_uri or another client burns the code', async () => {
    const other = await registeredClient(app);
    for (const spoil of [{ redirect_uri: 'http://127.0.0.1/elsewhere' }, { client_id: other.client_id }] as Record<
      string,
      string
    >[]) {
      const { client, params, verifier } = await request();
      const code = await approvedCode(app, session, params);
      const bad = await exchange(client.client_id, code, verifier, spoil);
      expect(bad.body.error, JSON.stringify(spoil)).toBe('invalid_grant');
      expect((await exchange(client.client_id, code, verifier)).body.error).toBe('invalid_grant');
    }
  });

  it('a code lives 60 s of the simulated clock', async () => {
    const { client, params, verifier } = await request();
    const code = await approvedCode(app, session, params);
    await advance(app, 61);
    expect((await exchange(client.client_id, code, verifier)).body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('expired'),
    });
  });

  it('reusing a code revokes the tokens issued from it', async () => {
    const { client, params, verifier } = await request();
    const code = await approvedCode(app, session, params);
    const first = await exchange(client.client_id, code, verifier);
    expect(first.status).toBe(200);
    expect((await mcpPost(app, first.body.access_token, 'tools/list')).status).toBe(200);
    const again = await exchange(client.client_id, code, verifier);
    expect(again.body.error).toBe('invalid_grant');
    expect((await mcpPost(app, first.body.access_token, 'tools/list')).status).toBe(401);
    expect(
      (
        await tokenRequest(app, {
          grant_type: 'refresh_token',
          client_id: client.client_id,
          refresh_token: first.body.refresh_token,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('codes are stored as their SHA-256 only', async () => {
    const { params } = await request();
    const code = await approvedCode(app, session, params);
    const rows = await app.running.app.prisma.oAuthAuthorizationCode.findMany();
    expect(JSON.stringify(rows)).not.toContain(code);
  });
});

describe('resource indicators (RFC 8707)', () => {
  it('a token bound to /mcp works there and nowhere else; one bound to /v1 is refused at /mcp with invalid_token', async () => {
    const mcp = await codeFlow(app, session, { client: shared, scope: 'servers:read', resource: `${app.url}/mcp` });
    expect((await mcpPost(app, mcp.tokens.access_token, 'tools/list')).status).toBe(200);
    expect((await app.call('GET', '/v1/servers', { key: mcp.tokens.access_token })).status).toBe(401);

    const rest = await codeFlow(app, session, { client: shared, scope: 'servers:read', resource: `${app.url}/v1` });
    expect((await app.call('GET', '/v1/servers', { key: rest.tokens.access_token })).status).toBe(200);
    const refused = await mcpPost(app, rest.tokens.access_token, 'tools/list');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(refused.body.message).toContain(`issued for ${app.url}/v1`);
  });

  it("the token request may repeat the authorization's resource, not name another (invalid_target)", async () => {
    const { client, params, verifier } = await request('servers:read', { resource: `${app.url}/mcp` });
    const code = await approvedCode(app, session, params);
    const other = await exchange(client.client_id, code, verifier, { resource: `${app.url}/v1` });
    expect(other.body.error).toBe('invalid_target');
    const { client: c2, params: p2, verifier: v2 } = await request('servers:read');
    const code2 = await approvedCode(app, session, p2);
    expect((await exchange(c2.client_id, code2, v2, { resource: 'https://elsewhere.example/' })).body.error).toBe(
      'invalid_target',
    );
  });

  it('refresh rotates (single use), keeps the binding, and a reused refresh token revokes the grant', async () => {
    const { client, tokens } = await codeFlow(app, session, {
      client: shared,
      scope: 'servers:read',
      resource: `${app.url}/mcp`,
    });
    const foreign = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
      resource: `${app.url}/v1`,
    });
    expect(foreign.body.error).toBe('invalid_target');
    const next = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
      resource: `${app.url}/mcp`,
    });
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.body.access_token).toMatch(/^svc_at_/);
    expect((await mcpPost(app, next.body.access_token, 'tools/list')).status).toBe(200);
    expect((await app.call('GET', '/v1/servers', { key: next.body.access_token })).status).toBe(401);
    const reuse = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
    });
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await mcpPost(app, next.body.access_token, 'tools/list')).status).toBe(401);
  });
});

describe('tools a token cannot call are hidden, and refused when called', () => {
  it("lists only the granted scopes' tools; a call of a hidden tool is a 403 tool error and runs nothing", async () => {
    const { tokens } = await codeFlow(app, session, {
      client: shared,
      scope: 'tickets:read',
      resource: `${app.url}/mcp`,
    });
    const client = await mcpClient(app.url, tokens.access_token);
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name.startsWith('ticket'))).toBe(true);
    expect(tools.some((t) => t.name === 'servers_list')).toBe(false);
    // Run, it would answer 404 (no such server): the 403 comes before the tool.
    const called = await client.callTool({ name: 'server_power', arguments: { id: 'srv_none', action: 'reboot' } });
    expect(called.isError).toBe(true);
    expect(called.structuredContent).toMatchObject({
      statusCode: 403,
      message: expect.stringContaining('servers:write'),
    });
    await client.close();
  });
});

describe('connected apps', () => {
  it('the dashboard lists the client with its redirect host, scopes and last use; revoking it ends its tokens at once', async () => {
    const { client, tokens } = await codeFlow(app, session, { scope: 'servers:read', resource: `${app.url}/mcp` });
    expect((await mcpPost(app, tokens.access_token, 'tools/list')).status).toBe(200);
    const list = await dashboard(app, session, 'GET', '/apps');
    const row = list.body.data.find((g: { client: { id: string } }) => g.client.id === client.client_id);
    expect(row).toMatchObject({
      client: { name: 'Test MCP host' },
      redirectHost: '127.0.0.1',
      resource: `${app.url}/mcp`,
      scopes: ['servers:read'],
      lastUsedAt: expect.any(String),
    });
    const revoked = await dashboard(app, session, 'DELETE', `/apps/${row.id}`);
    expect(revoked.status).toBe(200);
    expect((await mcpPost(app, tokens.access_token, 'tools/list')).status).toBe(401);
    expect(
      (
        await tokenRequest(app, {
          grant_type: 'refresh_token',
          client_id: client.client_id,
          refresh_token: tokens.refresh_token,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('RFC 7009 revocation of the refresh token ends the grant', async () => {
    const { client, tokens } = await codeFlow(app, session, {
      client: shared,
      scope: 'servers:read',
      resource: `${app.url}/mcp`,
    });
    const r = await oauthPost(app, '/oauth/revoke', { client_id: client.client_id, token: tokens.refresh_token });
    expect(r.status).toBe(200);
    expect((await mcpPost(app, tokens.access_token, 'tools/list')).status).toBe(401);
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
