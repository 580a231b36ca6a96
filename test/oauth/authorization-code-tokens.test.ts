import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';
import { accountHolder, dashboard, oauthPost, signIn, startOAuthApp, type DashboardSession } from '../helpers/oauth.ts';
import {
  approvedCode,
  authorizeRequest,
  codeFlow,
  exchangeCode,
  mcpPost,
  pkce,
  registeredClient,
  tokenRequest,
  type AuthorizeParams,
} from '../helpers/oauth-code.ts';
import { advance } from '../helpers/servers.ts';

// What an authorization code buys: the token endpoint's checks of the code, tokens bound to a
// resource, the tools a token may call, and ending a grant.
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
const exchange = (clientId: string, code: string, verifier: string, extra?: Record<string, string>) =>
  exchangeCode(app, clientId, code, verifier, extra);

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
