import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import {
  accountHolder,
  dashboard,
  DEVICE_GRANT,
  oauthPost,
  signIn,
  startDevice,
  startOAuthApp,
  type DashboardSession,
} from '../helpers/oauth.ts';
import { approvedCode, getAuthorize, pkce, register, registeredClient, tokenRequest } from '../helpers/oauth-code.ts';

let app: TestApp;
let session: DashboardSession;
/** A self-registered client whose chosen name impersonates the built-in one. */
let impostor: { client_id: string };

const REDIRECT = 'http://127.0.0.1/callback';

beforeAll(async () => {
  app = await startOAuthApp();
  session = await signIn(app, await accountHolder(app));
  impostor = await registeredClient(app, REDIRECT, 'svc command-line interface');
});
afterAll(async () => {
  await app?.stop();
});

const prisma = () => app.running.app.prisma;

describe('device authorization endpoint', () => {
  it('150 calls from one address are cut off with 429 (OAuth error shape, Retry-After), and refused calls store no device code', async () => {
    const other = await startOAuthApp();
    try {
      const statuses: number[] = [];
      let refused: Awaited<ReturnType<typeof oauthPost>> | undefined;
      for (let i = 0; i < 150; i++) {
        const r = await oauthPost(other, '/oauth/device_authorization', { client_id: 'svc-cli' });
        statuses.push(r.status);
        if (r.status === 429) refused ??= r;
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(30);
      expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
      expect(refused!.body).toEqual({
        error: 'too_many_requests',
        error_description: expect.stringMatching(/Retry after/),
      });
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await other.running.app.prisma.oAuthDeviceCode.count()).toBe(30);
    } finally {
      await other.stop();
    }
  });

  it('a self-registered client not registered for the device grant is refused (unauthorized_client), and no device code is stored', async () => {
    const before = await prisma().oAuthDeviceCode.count();
    const r = await oauthPost(app, '/oauth/device_authorization', {
      client_id: impostor.client_id,
      scope: 'servers:read',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unauthorized_client');
    expect(await prisma().oAuthDeviceCode.count()).toBe(before);
  });

  it('a self-registered client that asked for the device grant is shown as "unverified" with its id, on the page and in the dashboard API', async () => {
    const reg = await register(app, {
      client_name: 'svc command-line interface',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', DEVICE_GRANT],
    });
    expect(reg.status).toBe(201);
    expect(reg.body.grant_types).toContain(DEVICE_GRANT);
    const d = await startDevice(app, 'servers:read', reg.body.client_id);
    const lookup = await dashboard(app, session, 'POST', '/device/lookup', { userCode: d.user_code });
    expect(lookup.body.client).toEqual({ id: reg.body.client_id, name: 'svc command-line interface', verified: false });
    const page = await devicePage(d.user_code);
    expect(page).toContain(`data-testid="client-id">${reg.body.client_id}<`);
    expect(page).toContain('data-testid="unverified"');
  });

  it('the built-in CLI keeps the device grant and is not marked unverified', async () => {
    const d = await startDevice(app, 'servers:read');
    const lookup = await dashboard(app, session, 'POST', '/device/lookup', { userCode: d.user_code });
    expect(lookup.body.client).toEqual({ id: 'svc-cli', name: 'svc command-line interface', verified: true });
    const page = await devicePage(d.user_code);
    expect(page).toContain('data-testid="client-id">svc-cli<');
    expect(page).not.toContain('data-testid="unverified"');
  });
});

/** The no-script device page's lookup step for a user code. */
async function devicePage(userCode: string): Promise<string> {
  const res = await fetch(`${app.url}/oauth/device`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: session.cookie, Origin: app.url },
    body: new URLSearchParams({ csrf: session.csrf, action: 'lookup', user_code: userCode }).toString(),
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('authorization endpoint', () => {
  it('the consent page shows a self-registered client\'s id and "unverified" next to the name it chose', async () => {
    const r = await getAuthorize(
      app,
      {
        client_id: impostor.client_id,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        scope: 'servers:read',
      },
      session,
    );
    expect(r.status).toBe(200);
    expect(r.html).toContain(`data-testid="client-id">${impostor.client_id}<`);
    expect(r.html).toContain('data-testid="unverified"');
  });

  it('an error for a self-registered client is a page with a link back, not an automatic redirect, and issues no code', async () => {
    const before = await prisma().oAuthAuthorizationCode.count();
    for (const session_ of [session, undefined]) {
      const r = await getAuthorize(
        app,
        {
          client_id: impostor.client_id,
          redirect_uri: REDIRECT,
          code_challenge: pkce().challenge,
          code_challenge_method: 'plain',
          state: 's1',
        },
        session_,
      );
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.headers.get('content-type')).toMatch(/text\/html/);
      expect(r.html).toMatch(
        /<a href="http:\/\/127\.0\.0\.1\/callback\?[^"]*error=invalid_request[^"]*" data-testid="return-to-client"/,
      );
    }
    expect(await prisma().oAuthAuthorizationCode.count()).toBe(before);
  });
});

describe('token endpoint: PKCE', () => {
  it('a code presented without code_verifier is burned: the right verifier then fails too, and no grant is made', async () => {
    const { verifier, challenge } = pkce();
    const params = {
      client_id: impostor.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      scope: 'servers:read',
      state: 'x',
    };
    const code = await approvedCode(app, session, params);
    const grants = await prisma().oAuthGrant.count();
    const bare = await tokenRequest(app, {
      grant_type: 'authorization_code',
      client_id: impostor.client_id,
      code,
      redirect_uri: REDIRECT,
    });
    expect(bare).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const right = await tokenRequest(app, {
      grant_type: 'authorization_code',
      client_id: impostor.client_id,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(right).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await prisma().oAuthGrant.count()).toBe(grants);
  });
});
