import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import {
  browserSignIn,
  ensureDashboardBuilt,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
} from '../helpers/browser.ts';
import { accountHolder, startOAuthApp, type Holder } from '../helpers/oauth.ts';

/**
 * The device flow with a real client (openid-client 6) against the running server, the user's
 * part done by Chromium: sign in on the device page, see the app and its scopes, approve fewer.
 */
describe.skipIf(!hasChromium)('device flow: openid-client + Chromium', () => {
  let app: TestApp;
  let holder: Holder;
  let browser: Browser;
  let config: client.Configuration;

  beforeAll(async () => {
    ensureDashboardBuilt();
    app = await startOAuthApp();
    holder = await accountHolder(app);
    browser = await launchBrowser();
    config = await client.discovery(new URL(app.url), 'svc-cli', undefined, client.None(), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  let tokens: client.TokenEndpointResponse;

  it('discovers the server, gets a user code, the user approves in the browser, the client receives tokens', async () => {
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${app.url}/oauth/device_authorization`);
    const device = await client.initiateDeviceAuthorization(config, {
      scope: 'account:read servers:read servers:write',
    });
    expect(device.user_code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const polling = client.pollDeviceAuthorizationGrant(config, device);

    const { page } = browser;
    // The user opens verification_uri_complete, signs in, and lands back on the device page.
    await page.goto(device.verification_uri_complete!);
    await screenshot(page, 'sign-in');
    await browserSignIn(page, app.url, holder.email, holder.password, `/oauth/device?user_code=${device.user_code}`);
    const request = page.getByTestId('device-request');
    await request.waitFor();
    await expect(request.textContent()).resolves.toContain('svc command-line interface');
    await screenshot(page, 'device-approval');
    // Grant fewer scopes than asked: no servers:write.
    await request.getByRole('checkbox', { name: 'servers:write' }).uncheck();
    await request.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('device-done').waitFor();
    await screenshot(page, 'device-approved');

    tokens = await polling;
    expect(tokens.access_token).toMatch(/^svc_at_/);
    expect(tokens.refresh_token).toMatch(/^svc_rt_/);
    expect(tokens.scope).toBe('account:read servers:read');
    expect(tokens.expires_in).toBe(3600);
    expect((await app.call('GET', '/v1/account', { key: tokens.access_token })).status).toBe(200);
    expect((await app.call('POST', '/v1/servers/srv_x/power/stop', { key: tokens.access_token })).status).toBe(403);
  }, 60_000);

  it('refreshes (rotation); reusing the spent refresh token is refused and revokes the grant', async () => {
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await app.call('GET', '/v1/account', { key: refreshed.access_token })).status).toBe(200);

    const reuse = await client.refreshTokenGrant(config, tokens.refresh_token!).then(
      () => null,
      (err: client.ResponseBodyError) => err,
    );
    expect(reuse).toBeInstanceOf(client.ResponseBodyError);
    expect(reuse?.error).toBe('invalid_grant');
    expect((await app.call('GET', '/v1/account', { key: refreshed.access_token })).status).toBe(401);
  });

  it('revocation from the dashboard (connected apps) refuses the tokens at once', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'account:read' });
    const polling = client.pollDeviceAuthorizationGrant(config, device);
    const { page } = browser;
    await page.goto(`${app.url}/oauth/device`);
    await page.getByLabel('Code shown on your device').fill(device.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('device-request').getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('device-done').waitFor();
    const t = await polling;
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(200);

    await page.goto(`${app.url}/apps`);
    const row = page.getByTestId('app-svc-cli');
    await row.waitFor();
    await screenshot(page, 'connected-apps');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect app' }).click();
    await page.getByText('No connected apps.').waitFor();
    expect((await app.call('GET', '/v1/account', { key: t.access_token })).status).toBe(401);
    const refresh = await client.refreshTokenGrant(config, t.refresh_token!).then(
      () => null,
      (err: client.ResponseBodyError) => err,
    );
    expect(refresh?.error).toBe('invalid_grant');
  }, 60_000);
});
