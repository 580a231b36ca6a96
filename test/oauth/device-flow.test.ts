import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { subscribeEvents } from '../helpers/graphql-ws.ts';
import { gql } from '../helpers/graphql.ts';
import { mcpClient } from '../helpers/mcp.ts';
import {
  accountHolder,
  dashboard,
  deviceTokens,
  DEVICE_GRANT,
  oauthPost,
  pollToken,
  signIn,
  startDevice,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import { advance, runningServer } from '../helpers/servers.ts';

let app: TestApp;
let holder: Holder;
let session: DashboardSession;

beforeAll(async () => {
  app = await startOAuthApp();
  holder = await accountHolder(app);
  session = await signIn(app, holder);
});
afterAll(async () => {
  await app?.stop();
});

describe('authorization-server metadata (RFC 8414)', () => {
  it('lists the issuer, endpoints, grant types and scopes', async () => {
    const res = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const m = await res.json();
    expect(m).toMatchObject({
      issuer: app.url,
      device_authorization_endpoint: `${app.url}/oauth/device_authorization`,
      token_endpoint: `${app.url}/oauth/token`,
      revocation_endpoint: `${app.url}/oauth/revoke`,
      grant_types_supported: ['authorization_code', DEVICE_GRANT, 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(m.scopes_supported).toContain('servers:read');
    expect(m.scopes_supported).toContain('servers:destroy');
  });
});

describe('device authorization (RFC 8628 §3.1–3.2)', () => {
  it('answers a device code, an XXXX-XXXX user code, the verification URIs, expiry and interval', async () => {
    const d = await startDevice(app, 'servers:read account:read');
    expect(d.device_code.length).toBeGreaterThanOrEqual(43);
    expect(d.user_code).toMatch(/^[CDFGHJKMNPQRTVWXY347]{4}-[CDFGHJKMNPQRTVWXY347]{4}$/);
    expect(d.verification_uri).toBe(`${app.url}/oauth/device`);
    expect(d.verification_uri_complete).toBe(`${app.url}/oauth/device?user_code=${d.user_code}`);
    expect(d.expires_in).toBe(600);
    expect(d.interval).toBe(5);
  });

  it('refuses an unknown client (401 invalid_client), an unknown scope (invalid_scope) and a JSON body (invalid_request)', async () => {
    const unknown = await oauthPost(app, '/oauth/device_authorization', { client_id: 'nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const scope = await oauthPost(app, '/oauth/device_authorization', {
      client_id: 'svc-cli',
      scope: 'servers:read root',
    });
    expect(scope.status).toBe(400);
    expect(scope.body.error).toBe('invalid_scope');
    const json = await fetch(`${app.url}/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"client_id":"svc-cli"}',
    });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe('invalid_request');
    const get = await fetch(`${app.url}/oauth/token`);
    expect(get.status).toBe(405);
  });

  it('registers public clients through the operator API', async () => {
    const c = await app.admin('POST', '/admin/oauth/clients', { name: 'Terraform provider' });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'Terraform provider', token_endpoint_auth_method: 'none' });
    expect(c.body.client_id).toMatch(/^oac_/);
    const d = await startDevice(app, 'account:read', c.body.client_id);
    const lookup = await dashboard(app, session, 'POST', '/device/lookup', {
      userCode: d.user_code.toLowerCase().replace('-', ' '),
    });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({
      userCode: d.user_code,
      client: { id: c.body.client_id, name: 'Terraform provider' },
      scopes: ['account:read'],
    });
  });
});

describe('token endpoint: polling (RFC 8628 §3.4–3.5)', () => {
  it('answers authorization_pending, then slow_down when polled too fast, raising the interval by 5 s', async () => {
    const d = await startDevice(app, 'account:read');
    const first = await pollToken(app, d.device_code);
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('authorization_pending');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const fast = await pollToken(app, d.device_code);
    expect(fast.body.error).toBe('slow_down');
    // The interval is now 10 s: 6 s later is still too fast, 11 s after that is fine.
    await advance(app, 6);
    expect((await pollToken(app, d.device_code)).body.error).toBe('slow_down');
    await advance(app, 16);
    expect((await pollToken(app, d.device_code)).body.error).toBe('authorization_pending');
  });

  it('answers access_denied once the user denies', async () => {
    const d = await startDevice(app, 'account:read');
    const deny = await dashboard(app, session, 'POST', '/device/deny', { userCode: d.user_code });
    expect(deny.status).toBe(200);
    const r = await pollToken(app, d.device_code);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('access_denied');
    // An answered code cannot be approved afterwards.
    expect((await dashboard(app, session, 'POST', '/device/approve', { userCode: d.user_code })).status).toBe(404);
  });

  it('answers expired_token once the simulated clock passes the expiry, and the code can no longer be approved', async () => {
    const d = await startDevice(app, 'account:read');
    await advance(app, 601);
    // Approving needs a password typed in the last 10 minutes (sudo mode): sign in again.
    session = await signIn(app, holder);
    const r = await pollToken(app, d.device_code);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('expired_token');
    expect((await dashboard(app, session, 'POST', '/device/approve', { userCode: d.user_code })).status).toBe(404);
  });

  it('exchanges an approved code once (a second exchange is invalid_grant); unknown codes and grant types are refused', async () => {
    const d = await startDevice(app, 'account:read servers:read');
    expect((await dashboard(app, session, 'POST', '/device/approve', { userCode: d.user_code })).status).toBe(200);
    const t = await pollToken(app, d.device_code);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'account:read servers:read' });
    expect(t.body.access_token).toMatch(/^svc_at_[A-Za-z0-9]{40}$/);
    expect(t.body.refresh_token).toMatch(/^svc_rt_[A-Za-z0-9]{40}$/);
    expect((await pollToken(app, d.device_code)).body.error).toBe('invalid_grant');
    expect((await pollToken(app, 'not-a-code')).body.error).toBe('invalid_grant');
    const other = await oauthPost(app, '/oauth/token', { grant_type: 'client_credentials', client_id: 'svc-cli' });
    expect(other.body.error).toBe('unsupported_grant_type');
    const missing = await oauthPost(app, '/oauth/token', { client_id: 'svc-cli' });
    expect(missing.body.error).toBe('invalid_request');
  });

  it('refuses approving scopes that were not requested', async () => {
    const d = await startDevice(app, 'account:read');
    const r = await dashboard(app, session, 'POST', '/device/approve', {
      userCode: d.user_code,
      scopes: ['account:read', 'servers:destroy'],
    });
    expect(r.status).toBe(400);
  });
});

describe('access tokens on every surface, with exactly the granted scopes', () => {
  let token: string;
  let serverId: string;

  beforeAll(async () => {
    serverId = await runningServer(app, { accountId: holder.accountId, key: '', keyId: '' });
    // Asked for read and write on servers; the user grants read only.
    const t = await deviceTokens(app, session, 'servers:read servers:write account:read', [
      'servers:read',
      'account:read',
    ]);
    expect(t.scope).toBe('account:read servers:read');
    token = t.access_token;
  });

  it('REST: reads pass, a write outside the grant is 403', async () => {
    const list = await app.call('GET', '/v1/servers', { key: token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toContain(serverId);
    const power = await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: token });
    expect(power.status).toBe(403);
    expect(power.body.message).toMatch(/servers:write/);
  });

  it('GraphQL: the same', async () => {
    const q = await gql(app, '{ servers { nodes { id } } }', { key: token });
    expect(q.status).toBe(200);
    const m = await gql(app, `mutation { serverPower(id: "${serverId}", action: stop) { id } }`, { key: token });
    expect(m.status).toBe(403);
  });

  it('graphql-ws: the token authenticates the subscription', async () => {
    const sub = await subscribeEvents(app.url, token);
    expect(sub.closeCode).toBeUndefined();
    const key = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['servers:write'] });
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: key.body.key });
    const [e] = await sub.waitFor(1);
    expect(e.type).toBe('server.power.changed');
    await sub.dispose();
    await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: key.body.key });
  });

  it('MCP: lists only the granted tools and refuses the others', async () => {
    const client = await mcpClient(app.url, token);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('servers_list');
    expect(tools).not.toContain('server_power');
    const refused = await client.callTool({ name: 'server_power', arguments: { id: serverId, action: 'stop' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/403/);
    await client.close();
  });

  it('a refresh token never authenticates an API call', async () => {
    const t = await deviceTokens(app, session, 'account:read');
    const r = await app.call('GET', '/v1/account', { key: t.refresh_token });
    expect(r.status).toBe(401);
  });

  it('an access token expires after an hour (simulated clock)', async () => {
    const t = await deviceTokens(app, session, 'account:read');
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(200);
    await advance(app, 3601);
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(401);
    session = await signIn(app, holder); // a fresh password entry for the approvals that follow (sudo mode)
  });
});

describe('refresh: rotation and reuse detection', () => {
  it('rotates the refresh token; reusing a spent one revokes the whole grant and its access tokens', async () => {
    const first = await deviceTokens(app, session, 'account:read');
    const r1 = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: 'svc-cli',
    });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(first.refresh_token);
    expect(r1.body.scope).toBe('account:read');
    expect((await app.call('GET', '/v1/account', { key: r1.body.access_token })).status).toBe(200);

    const reuse = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: 'svc-cli',
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // Everything of the grant is dead: both access tokens and the newest refresh token.
    expect((await app.call('GET', '/v1/account', { key: r1.body.access_token })).status).toBe(401);
    expect((await app.call('GET', '/v1/account', { key: first.access_token })).status).toBe(401);
    const next = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: r1.body.refresh_token,
      client_id: 'svc-cli',
    });
    expect(next.body.error).toBe('invalid_grant');
  });

  it('may narrow the scopes, never widen them; another client cannot use the token', async () => {
    const t = await deviceTokens(app, session, 'account:read servers:read');
    const wider = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: 'svc-cli',
      scope: 'servers:write',
    });
    expect(wider.body.error).toBe('invalid_scope');
    const c = await app.admin('POST', '/admin/oauth/clients', { name: 'Other app' });
    const stolen = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: c.body.client_id,
    });
    expect(stolen.body.error).toBe('invalid_grant');
    const narrow = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: 'svc-cli',
      scope: 'account:read',
    });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('account:read');
    expect((await app.call('GET', '/v1/servers', { key: narrow.body.access_token })).status).toBe(403);
  });
});

describe('revocation (RFC 7009) and connected apps', () => {
  it('revoking an access token kills it; revoking a refresh token kills the grant; unknown tokens answer 200', async () => {
    const t = await deviceTokens(app, session, 'account:read');
    const r = await oauthPost(app, '/oauth/revoke', { token: t.access_token, client_id: 'svc-cli' });
    expect(r.status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(401);
    const refreshed = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: 'svc-cli',
    });
    expect(refreshed.status).toBe(200);

    const r2 = await oauthPost(app, '/oauth/revoke', {
      token: refreshed.body.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: 'svc-cli',
    });
    expect(r2.status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: refreshed.body.access_token })).status).toBe(401);
    expect(
      (
        await oauthPost(app, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: refreshed.body.refresh_token,
          client_id: 'svc-cli',
        })
      ).body.error,
    ).toBe('invalid_grant');

    expect((await oauthPost(app, '/oauth/revoke', { token: 'svc_at_unknown', client_id: 'svc-cli' })).status).toBe(200);
    expect((await oauthPost(app, '/oauth/revoke', { client_id: 'svc-cli' })).body.error).toBe('invalid_request');
  });

  it('lists connected apps in the dashboard; revoking one refuses its tokens at once', async () => {
    const t = await deviceTokens(app, session, 'account:read');
    const apps = await dashboard(app, session, 'GET', '/apps');
    expect(apps.status).toBe(200);
    const grant = apps.body.data.find(
      (g: { client: { id: string }; scopes: string[] }) =>
        g.client.id === 'svc-cli' && g.scopes.join() === 'account:read',
    );
    expect(grant).toBeTruthy();
    expect((await dashboard(app, session, 'DELETE', `/apps/${grant.id}`)).status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(401);
    expect(
      (
        await oauthPost(app, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: t.refresh_token,
          client_id: 'svc-cli',
        })
      ).body.error,
    ).toBe('invalid_grant');
    const after = await dashboard(app, session, 'GET', '/apps');
    expect(after.body.data.find((g: { id: string }) => g.id === grant.id)).toBeUndefined();
  });

  it('stores tokens and codes only as hashes', async () => {
    const t = await deviceTokens(app, session, 'account:read');
    const rows = await app.running.app.prisma.oAuthToken.findMany();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(t.access_token);
    expect(stored).not.toContain(t.refresh_token);
    expect(app.logs.join('\n')).not.toContain(t.access_token);
    expect(app.logs.join('\n')).not.toContain(t.refresh_token);
  });
});

describe('user-code guessing', () => {
  it('is rate limited per account (20 attempts per 15 minutes)', async () => {
    const other = await accountHolder(app);
    const s = await signIn(app, other);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await dashboard(app, s, 'POST', '/device/lookup', { userCode: 'CCCC-CCCC' })).status);
    expect(statuses.slice(0, 20).every((x) => x === 404)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});
