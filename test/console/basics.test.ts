import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
  DESKTOP,
  PHONE,
  closeConsole,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';

/** The dashboard's one date format (src/dashboard/format.tsx). */
const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/;
/** What Date's toUTCString, toLocaleString and toLocaleTimeString print. */
const OLD_DATES = [
  /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4}/,
  /\b\d{1,2}\/\d{1,2}\/\d{4}\b/,
  /\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b/,
];

/** Client-side navigation, as the app's own links do (keeps the tab's live event feed). */
async function go(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

/** Phone layout, one date format, confirmations, favicon, /servers and the keys' "last used" in Chromium. */
describe.skipIf(!hasChromium)('dashboard basics in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let readKey: string;
  let unusedKey: string;
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];

  const apiStatus = async () => (await app.call('GET', `/v1/servers/${serverId}`, { key: readKey })).body.status;

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    readKey = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'reader',
        scopes: ['servers:read', 'webhooks:write'],
      })
    ).body.key;
    unusedKey = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'unused',
        scopes: ['servers:read'],
      })
    ).body.key;
    const hook = await app.call('POST', '/v1/webhooks', {
      key: readKey,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(200);
    browser = await launchBrowser();
    const { page } = browser;
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('requestfailed', (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) failedRequests.push(`${r.url()}: ${r.status()}`);
    });
    await page.setViewportSize(PHONE);
  });
  afterAll(() => closeConsole(browser, app));

  it('serves an SVG favicon, linked from the page and at /favicon.ico', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toContain('<svg');
    }
    const html = await (await fetch(`${app.url}/`, { headers: { Accept: 'text/html' } })).text();
    expect(html).toMatch(/<link rel="icon" type="image\/svg\+xml" href="\/favicon.svg"/);
  });

  it('lists the servers at /servers, each linking to its page', async () => {
    const { page } = browser;
    await browserSignIn(page, app.url, holder.email, holder.password, '/servers');
    const list = page.getByTestId('server-list');
    const row = list.getByTestId(`server-${serverId}`);
    await row.waitFor();
    await expect(row.getByTestId('server-status').textContent()).resolves.toBe('running');
    const text = (await row.textContent())!;
    expect(text).toContain('2 vCPU · 4 GB');
    expect(text).toContain('std-2c-4g-50');
    expect(text).toMatch(/\d+\.\d+\.\d+\.\d+/);
    // The navigation marks the page shown (closed behind the Menu button on a phone, so read by its place).
    const navLink = page.locator('#main-nav a[href="/servers"]');
    await expect(navLink.getAttribute('class')).resolves.toBe('active');
    await expect(navLink.getAttribute('aria-current')).resolves.toBe('page');
    await row.getByRole('link', { name: 'web-1' }).click();
    await page.getByRole('heading', { name: /web-1/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/servers/${serverId}`);
  });

  it('asks before stopping a server (danger style); cancelling changes nothing, confirming stops it', async () => {
    const { page } = browser;
    const actions = page.locator('.actions').first();
    const stop = actions.getByRole('button', { name: 'Stop', exact: true });
    const start = actions.getByRole('button', { name: 'Start', exact: true });
    await expect(stop.getAttribute('class')).resolves.toContain('danger');
    const colour = (el: typeof stop) => el.evaluate((b) => getComputedStyle(b).color);
    expect(await colour(stop)).toBe('rgb(179, 38, 45)');
    expect(await colour(stop)).not.toBe(await colour(start));
    await expect(actions.getByRole('button', { name: 'Reboot', exact: true }).getAttribute('class')).resolves.toContain(
      'danger',
    );

    await stop.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Stop web-1?').waitFor();
    await screenshot(page, 'basics-390-confirm-stop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await apiStatus()).toBe('running');
    await expect(page.getByTestId('server-status').textContent()).resolves.toBe('running');

    await stop.click();
    await expect(dialog.getByRole('button', { name: 'Stop server' }).getAttribute('class')).resolves.toContain(
      'danger',
    );
    await dialog.getByRole('button', { name: 'Stop server' }).click();
    await page.getByTestId('server-status').getByText('stopped').waitFor({ timeout: 10_000 });
    expect(await apiStatus()).toBe('stopped');
    await app.runDueWork();
  });

  it('shows when each key was last used (a date, or "never" for an unused one) and asks before revoking', async () => {
    const { page } = browser;
    await go(page, '/keys');
    const row = page.getByTestId(`key-${readKey.slice(0, 12)}`);
    await row.waitFor();
    await page.getByTestId('keys').getByRole('columnheader', { name: 'Last used' }).waitFor();
    // The reader key has made requests (recorded at most once a minute); the other one never has.
    await expect(row.getByTestId('key-last-used').textContent()).resolves.toMatch(DATE);
    await expect(
      page
        .getByTestId(`key-${unusedKey.slice(0, 12)}`)
        .getByTestId('key-last-used')
        .textContent(),
    ).resolves.toBe('never');
    const revoke = row.getByRole('button', { name: 'Revoke', exact: true });
    await expect(revoke.getAttribute('class')).resolves.toContain('danger');
    await revoke.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: readKey })).status).toBe(200);
    await expect(row.isVisible()).resolves.toBe(true);
  });

  it('fits a 390 px phone on every page, header included, and prints every date one way', async () => {
    const { page } = browser;
    const pages: [string, string, string][] = [
      ['overview', '/', '[data-testid="servers"] table'],
      ['servers', '/servers', '[data-testid="server-list"] table'],
      ['server', `/servers/${serverId}`, 'dl.facts'],
      ['keys', '/keys', '[data-testid="keys"]'],
      ['webhooks', '/webhooks', '[data-testid="deliveries"] table'],
      ['events', '/events', '[data-testid="event-feed"]'],
      ['apps', '/apps', 'text=No connected apps.'],
    ];
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      for (const [name, path, ready] of pages) {
        await go(page, path);
        await page.locator(ready).first().waitFor();
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `${name} at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);

        const header = (await page.locator('header.top').boundingBox())!;
        const menu = page.getByRole('button', { name: 'Menu' });
        const shown = [
          page.getByRole('link', { name: 'Cloud account' }),
          page.getByTestId('account-email'),
          page.getByRole('button', { name: 'Sign out' }),
          ...(viewport === PHONE ? [menu] : []),
        ];
        for (const el of shown) {
          const box = (await el.boundingBox())!;
          const what = `${await el.textContent()} on ${name} at ${viewport.width} px`;
          expect(box, what).not.toBeNull();
          // Inside the viewport and on the header's dark background.
          expect(box.x, what).toBeGreaterThanOrEqual(header.x);
          expect(box.x + box.width, what).toBeLessThanOrEqual(Math.min(viewport.width, header.x + header.width));
          expect(box.y + box.height, what).toBeLessThanOrEqual(header.y + header.height);
        }
        // At most two rows of header on a phone (brand, live badge and Menu; the account), one on a laptop.
        expect(header.height, `header on ${name} at ${viewport.width} px`).toBeLessThanOrEqual(
          viewport === PHONE ? 100 : 60,
        );
        // The navigation: beside the page on a laptop; on a phone behind the Menu button, every link inside the window once open.
        const nav = page.getByRole('navigation', { name: 'Console' });
        if (viewport === PHONE) {
          await expect(nav.isVisible()).resolves.toBe(false);
          await menu.click();
        } else await expect(menu.isVisible()).resolves.toBe(false);
        const links = await nav.getByRole('link').all();
        expect(links.length).toBe(13);
        for (const link of links) {
          const box = (await link.boundingBox())!;
          const what = `${await link.textContent()} on ${name} at ${viewport.width} px`;
          expect(box, what).not.toBeNull();
          expect(box.x, what).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width, what).toBeLessThanOrEqual(viewport.width);
        }
        if (viewport === PHONE) {
          await menu.click();
          await expect(nav.isVisible()).resolves.toBe(false);
        }

        const dates = await page.locator('main time').allTextContents();
        if (name !== 'apps') expect(dates.length, name).toBeGreaterThan(0);
        for (const d of dates) expect(d, name).toMatch(DATE);
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(): the rendered text the reader sees is what is checked
        const text = await page.locator('main').innerText();
        for (const old of OLD_DATES) expect(text, name).not.toMatch(old);
        await screenshot(page, `basics-${viewport.width}-${name}`);
      }
    }
  });

  it('loaded everything without a console error or a failed request', () => {
    expect(consoleErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
