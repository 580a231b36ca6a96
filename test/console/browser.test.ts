import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
  closeConsole,
  renewSession,
} from '../helpers/browser.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';
import { runningServer } from '../helpers/servers.ts';
import { SESSION_COOKIE } from '../../src/modules/dashboard/sessions.ts';

/** The dashboard in Chromium: sign in, mint a key and use it, see a live update, revoke the key. */
describe.skipIf(!hasChromium)('dashboard in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let key: string;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    browser = await launchBrowser();
    browser.page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      consoleLines.push(`${m.type()}: ${m.text()}`);
    });
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(() => closeConsole(browser, app));

  it('signs in and shows the overview, connected live', async () => {
    const { page } = browser;
    await browserSignIn(page, app.url, holder.email, holder.password);
    await page.getByTestId(`server-${serverId}`).waitFor();
    await page.getByTestId('live-status').getByText('live').waitFor();
    await expect(page.getByTestId(`server-${serverId}`).getByTestId('server-status').textContent()).resolves.toBe(
      'running',
    );
    await expect(page.getByTestId('wallet').textContent()).resolves.toContain('$500.00');
    await screenshot(page, 'overview');
  });

  it('mints a key with chosen scopes (shown once) that works over REST', async () => {
    const { page } = browser;
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('laptop');
    // None is ticked at first; only server read and write end up ticked.
    for (const box of await page.getByRole('checkbox').all()) {
      const name = await box.getAttribute('value');
      if (name === 'servers:read' || name === 'servers:write') await box.check();
      else await box.uncheck();
    }
    await page.getByRole('button', { name: 'Mint key' }).click();
    key = (await page.getByTestId('minted-key-value').textContent())!;
    expect(key).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    await page.getByTestId(`key-${key.slice(0, 12)}`).waitFor();
    await screenshot(page, 'api-keys');
    const list = await app.call('GET', '/v1/servers', { key });
    expect(list.status).toBe(200);
    expect((await app.call('GET', '/v1/account', { key })).status).toBe(403);
  });

  it('shows a power change made over REST without a reload', async () => {
    const { page } = browser;
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    const status = page.getByTestId(`server-${serverId}`).getByTestId('server-status');
    await expect(status.textContent()).resolves.toBe('running');
    const stop = await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key });
    expect(stop.status, stop.text).toBe(200);
    await page.getByTestId(`server-${serverId}`).getByText('stopped').waitFor({ timeout: 10_000 });
    await screenshot(page, 'overview-live-update');
    await page.getByRole('navigation').getByRole('link', { name: 'Live events' }).click();
    await page.getByTestId('event-feed').getByText('server.power.changed').waitFor();
    await screenshot(page, 'events');
  });

  it('shows the server page and webhooks with their delivery log', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/servers/${serverId}`);
    await page.getByRole('heading', { name: /web-1/ }).waitFor();
    await screenshot(page, 'server');

    const hook = await app.call('POST', '/v1/webhooks', {
      key: (
        await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
          scopes: ['webhooks:write', 'servers:read'],
        })
      ).body.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(200);
    await app.call('POST', `/v1/servers/${serverId}/power/start`, { key });
    await app.runDueWork();
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.getByTestId('webhooks').getByText('http://127.0.0.1:9/hook').waitFor();
    const deliveries = page.getByTestId('deliveries');
    await deliveries.getByText('server.power.changed').waitFor({ timeout: 10_000 });
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.getByText('Redelivery queued.').waitFor();
    await screenshot(page, 'webhooks');
  });

  it('revokes the key, which is refused at once', async () => {
    const { page } = browser;
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    const row = page.getByTestId(`key-${key.slice(0, 12)}`);
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await app.call('GET', '/v1/servers', { key });
    expect(refused.status).toBe(401);
  });

  it('lands a server SSO link on the server page in a fresh browser', async () => {
    const other = await launchBrowser();
    try {
      const k = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['servers:read'] });
      const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key: k.body.key });
      await other.page.goto(link.body.url);
      await other.page.getByRole('heading', { name: /web-1/ }).waitFor();
      expect(new URL(other.page.url()).pathname).toBe(`/servers/${serverId}`);
      await other.page.goto(link.body.url);
      await other.page.getByText('This sign-in link cannot be used').waitFor();
      await screenshot(other.page, 'sso-used');
    } finally {
      await other.close();
    }
  });

  it("a link's session is told why Keys and Apps cannot list, instead of loading forever", async () => {
    const other = await launchBrowser();
    try {
      const k = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'account:read'],
      });
      const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key: k.body.key });
      await other.page.goto(link.body.url);
      await other.page.getByRole('heading', { name: /web-1/ }).waitFor();
      for (const [path, testid] of [
        ['/keys', 'keys-refused'],
        ['/apps', 'apps-refused'],
      ]) {
        await other.page.goto(`${app.url}${path}`);
        const refusal = other.page.getByTestId(testid);
        await refusal.waitFor();
        expect(await refusal.textContent()).toMatch(/sign in with your password/);
        expect(await other.page.getByText('Loading…').count()).toBe(0);
      }
      await screenshot(other.page, 'sso-session-apps');
    } finally {
      await other.close();
    }
  });

  it("asks before another account's link replaces the signed-in session: Cancel keeps it, Continue switches", async () => {
    const b = await accountHolder(app);
    const bServer = await runningServer(app, { accountId: b.accountId, key: '', keyId: '' }, { label: 'b-web' });
    const bKey = await app.admin('POST', `/admin/accounts/${b.accountId}/api-keys`, { scopes: ['servers:read'] });
    const link = async () => (await app.call('POST', `/v1/servers/${bServer}/sso`, { key: bKey.body.key })).body.url;
    const { page } = browser;
    await page.goto(await link());
    await page.getByRole('heading', { name: 'Switch account?' }).waitFor();
    expect(await page.getByTestId('current-email').textContent()).toBe(holder.email);
    expect(await page.getByTestId('link-email').textContent()).toBe(b.email);
    await screenshot(page, 'sso-switch');
    await page.getByRole('link', { name: /Cancel/ }).click();
    await page.getByTestId('account-email').getByText(holder.email).waitFor();

    await page.goto(await link());
    await page.getByRole('button', { name: `Continue as ${b.email}` }).click();
    await page.getByRole('heading', { name: /b-web/ }).waitFor();
    expect(await page.getByTestId('account-email').textContent()).toContain(b.email);
    // Back to the holder for the tests that follow.
    await renewSession(browser, app.url, holder);
  });

  it('signs out, and broke no CSP rule along the way', async () => {
    const { page } = browser;
    try {
      await page.getByRole('button', { name: 'Sign out' }).click({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
    } catch (err) {
      // What the page showed, for whoever reads the failure.
      const shown = await page
        .locator('body')
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(): the page's rendered text, as the reader of the failure would see it
        .innerText({ timeout: 2000 })
        .catch((e: Error) => `(no text: ${e.message})`);
      const sudoOpen = await page
        .getByTestId('sudo-prompt')
        .evaluate((d) => (d as HTMLDialogElement).open)
        .catch(() => 'unknown');
      await screenshot(page, 'sign-out-failed').catch(() => undefined);
      throw new Error(
        `${(err as Error).message}\nurl: ${page.url()}\nsudo prompt open: ${sudoOpen}\npage text: ${shown.slice(0, 1500)}\nconsole: ${consoleLines.slice(-20).join('\n')}\nserver: ${app.logs
          .filter((l) => /dashboard|graphql|sso/.test(l))
          .slice(-25)
          .join('')}`,
      );
    }
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('signs out a session that had already ended elsewhere, to the sign-in form', async () => {
    const { page, context } = browser;
    await browserSignIn(page, app.url, holder.email, holder.password);
    const secret = (await context.cookies(app.url)).find((c) => c.name === SESSION_COOKIE)!.value;
    // Another tab signs the session out: the server forgets it, this page does not know yet.
    const headers = { cookie: `${SESSION_COOKIE}=${secret}`, origin: app.url, accept: 'application/json' };
    const { csrfToken } = (await (await fetch(`${app.url}/dashboard/api/session`, { headers })).json()) as {
      csrfToken: string;
    };
    const ended = await fetch(`${app.url}/dashboard/api/sign-out`, {
      method: 'POST',
      headers: { ...headers, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(ended.status).toBe(200);
    const refused = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/sign-out'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await refused).status()).toBe(401);
    await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
    expect(pageErrors).toEqual([]);
  });
});
