import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt, hasChromium, launchBrowser, screenshot } from '../helpers/browser.ts';
import { accountHolder, pollToken, signIn, startDevice, startOAuthApp, type Holder } from '../helpers/oauth.ts';
import { authorizeQuery, pkce, redirectReceiver, registeredClient, tokenRequest } from '../helpers/oauth-code.ts';

let app: TestApp;
let holder: Holder;

beforeAll(async () => {
  ensureDashboardBuilt();
  app = await startOAuthApp();
  holder = await accountHolder(app);
});
afterAll(async () => {
  await app?.stop();
});

/** GET then POST of the sign-in form as a browser without script does it: the CSRF cookie and field from the page. */
async function formSignIn(opts: { withCsrf: boolean; password?: string }) {
  const page = await fetch(`${app.url}/sign-in`, { headers: { Accept: 'text/html' } });
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const form = new URLSearchParams({
    email: holder.email,
    password: opts.password ?? holder.password,
    next: '/oauth/device',
  });
  if (opts.withCsrf) form.set('csrf', csrf);
  return fetch(`${app.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: app.url },
    body: form.toString(),
  });
}

describe('the pages as plain HTML forms (fetch)', () => {
  it('the sign-in page carries the form in <noscript>; a post with the CSRF field signs in and goes on to next', async () => {
    const ok = await formSignIn({ withCsrf: true });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/oauth/device');
    expect(
      ok.headers
        .getSetCookie()
        .some((c) => c.startsWith('svc_session=') && c.includes('HttpOnly') && c.includes('SameSite=Lax')),
    ).toBe(true);
  });

  it('a form post without the CSRF token is refused 403: sign-in, device', async () => {
    const noCsrf = await formSignIn({ withCsrf: false });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.headers.getSetCookie().some((c) => c.startsWith('svc_session='))).toBe(false);

    const session = await signIn(app, holder);
    const d = await startDevice(app, 'servers:read');
    const post = (form: Record<string, string>) =>
      fetch(`${app.url}/oauth/device`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: session.cookie, Origin: app.url },
        body: new URLSearchParams(form).toString(),
      });
    expect((await post({ user_code: d.user_code, action: 'approve', granted: 'servers:read' })).status).toBe(403);
    expect(
      (await post({ user_code: d.user_code, action: 'approve', granted: 'servers:read', csrf: 'forged' })).status,
    ).toBe(403);
    expect((await pollToken(app, d.device_code)).body.error).toBe('authorization_pending');
    const approved = await post({
      user_code: d.user_code,
      action: 'approve',
      granted: 'servers:read',
      csrf: session.csrf,
    });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('Device connected');
  });

  it('a wrong password shows the form again with the error (401)', async () => {
    const r = await formSignIn({ withCsrf: true, password: 'wrong password' });
    expect(r.status).toBe(401);
    expect(await r.text()).toContain('Wrong e-mail or password.');
  });
});

describe.skipIf(!hasChromium)('the pages in Chromium with JavaScript disabled', () => {
  it('signs in, approves a device with fewer scopes, and consents to an MCP host', async () => {
    const browser = await launchBrowser({ javaScriptEnabled: false });
    const { page } = browser;
    try {
      // Device: the verification link, the sign-in form first, then the code form, the request, the answer.
      const d = await startDevice(app, 'servers:read tickets:read');
      await page.goto(d.verification_uri_complete);
      await page.getByLabel('E-mail').fill(holder.email);
      await page.getByLabel('Password').fill(holder.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByLabel('Code shown on your device').inputValue()).resolves.toBe(d.user_code);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('device-request').waitFor();
      await page.getByRole('checkbox', { name: 'tickets:read' }).uncheck();
      await screenshot(page, 'no-script-device');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Device connected').waitFor();
      const tokens = await pollToken(app, d.device_code);
      expect(tokens.body.scope).toBe('servers:read');

      // Consent: same browser, signed in; the host's loopback receiver gets the code.
      const receiver = await redirectReceiver();
      const client = await registeredClient(app, 'http://127.0.0.1/callback', 'No-script host');
      const { verifier, challenge } = pkce();
      const query = authorizeQuery({
        client_id: client.client_id,
        redirect_uri: receiver.url,
        code_challenge: challenge,
        scope: 'servers:read',
        state: 'plain',
      });
      await page.goto(`${app.url}/oauth/authorize?${query}`);
      await page.getByText('No-script host').waitFor();
      await screenshot(page, 'no-script-consent');
      await page.getByRole('button', { name: 'Approve' }).click();
      const callback = await receiver.received;
      await receiver.close();
      expect(callback.state).toBe('plain');
      const t = await tokenRequest(app, {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code: callback.code!,
        redirect_uri: receiver.url,
        code_verifier: verifier,
      });
      expect(t.status).toBe(200);
      expect(t.body.scope).toBe('servers:read');
    } finally {
      await browser.close();
    }
  });

  it('consent for a visitor not signed in: sign-in form, then back to the consent page', async () => {
    const browser = await launchBrowser({ javaScriptEnabled: false });
    const { page } = browser;
    try {
      const receiver = await redirectReceiver();
      const client = await registeredClient(app, 'http://127.0.0.1/callback', 'Second host');
      const query = authorizeQuery({
        client_id: client.client_id,
        redirect_uri: receiver.url,
        code_challenge: pkce().challenge,
        scope: 'tickets:read',
        state: 's2',
      });
      await page.goto(`${app.url}/oauth/authorize?${query}`);
      await page.getByLabel('E-mail').fill(holder.email);
      await page.getByLabel('Password').fill(holder.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Second host').waitFor();
      await page.getByRole('button', { name: 'Deny' }).click();
      const callback = await receiver.received;
      await receiver.close();
      expect(callback).toMatchObject({ code: null, error: 'access_denied', state: 's2', iss: app.url });
    } finally {
      await browser.close();
    }
  });
});
