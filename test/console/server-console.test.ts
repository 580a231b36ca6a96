import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  closeConsole,
  DESKTOP,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  PHONE,
  pageWidth,
  screenshot,
  type Browser,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';
import { fitsAndPasses } from '../helpers/page-checks.ts';

/** The console's screen as a person reads it, a line per row (xterm.js draws its rows as text). */
const screenText = async (tab: Page) =>
  (await tab.locator('.xterm-rows > div').allTextContents()).join('\n').replace(/\u00a0/g, ' ');

/** Waits until the console's screen shows `what`. */
const shows = (tab: Page, what: RegExp) =>
  expect.poll(() => screenText(tab), { timeout: 10_000, interval: 100 }).toMatch(what);

/** Getting into a server from the console, against the built server: a new root password, then the web console. */
describe.skipIf(!hasChromium)('dashboard: root password and web console', () => {
  let app: BuiltApp;
  let holder: Holder;
  let serverId: string;
  let browser: Browser;
  let password = '';
  const pageErrors: string[] = [];
  /** Status of every asset the console tab loaded from the server. */
  const assets: string[] = [];

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    browser.context.on('response', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith('/server-console/assets/')) assets.push(`${pathname} ${r.status()}`);
    });
    await browserSignIn(browser.page, app.url, holder.email, holder.password, `/servers/${serverId}`);
    await browser.page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
  });
  afterAll(() => closeConsole(browser, app));

  it('resets the root password after confirming, shows it once with a Copy button', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    const access = page.getByTestId('server-access');
    await access.getByRole('button', { name: 'Reset root password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the root password of web-1?' });
    await dialog.getByText('The new one is shown only once.').waitFor();
    await fitsAndPasses(page, 'password reset dialog');
    await dialog.getByRole('button', { name: 'Reset password' }).click();
    const shown = page.getByRole('region', { name: 'New root password' });
    await shown.getByText('Shown only this once').waitFor({ timeout: 10_000 });
    password = (await shown.locator('code').textContent()) ?? '';
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('status').getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(password);
    await fitsAndPasses(page, 'new root password');
    await page.setViewportSize(PHONE);
    await fitsAndPasses(page, 'new root password');
    await screenshot(page, 'server-root-password-390');
    await page.setViewportSize(DESKTOP);
  });

  it('opens the web console in a new tab; root and that password log in; hostname answers web-1', async () => {
    const { page, context } = browser;
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByTestId('server-access').getByRole('button', { name: 'Console' }).click(),
    ]);
    tab.on('pageerror', (e) => pageErrors.push(`console tab: ${e.message}`));
    await tab.getByRole('status').getByText('Connected to the serial console.').waitFor({ timeout: 10_000 });
    // The ticket left the address bar.
    await expect.poll(() => new URL(tab.url()).hash).toBe('');
    expect(new URL(tab.url()).pathname).toBe(`/server-console/${serverId}`);
    await shows(tab, /Ubuntu 24\.04 LTS web-1 ttyS0/);
    await shows(tab, /web-1 login:/);

    // A wrong password first.
    await tab.keyboard.type('root\n');
    await shows(tab, /Password: /);
    await tab.keyboard.type('not the password\n');
    await shows(tab, /Login incorrect/);

    await tab.keyboard.type('root\n');
    await tab.keyboard.type(`${await page.evaluate(() => navigator.clipboard.readText())}\n`);
    await shows(tab, /root@web-1:~#/);
    expect(await screenText(tab)).not.toContain(password);
    await tab.keyboard.type('hostname\n');
    await shows(tab, /# hostname *\nweb-1 *\n/);
    await tab.keyboard.type('cat /etc/os-release\n');
    await shows(tab, /PRETTY_NAME="Ubuntu 24\.04 LTS"/);
    await tab.keyboard.type('frobnicate\n');
    await shows(tab, /frobnicate: command not found/);
    // Everything the page needs came from the built server itself.
    expect(assets.sort()).toEqual([
      '/server-console/assets/console.js 200',
      '/server-console/assets/xterm.css 200',
      '/server-console/assets/xterm.js 200',
    ]);

    await tab.setViewportSize(DESKTOP);
    await fitsAndPasses(tab, 'web console');
    await tab.setViewportSize(PHONE);
    // The console takes the new width in columns on its next frame.
    await expect.poll(async () => (await pageWidth(tab)).scroll).toBeLessThanOrEqual(PHONE.width);
    await fitsAndPasses(tab, 'web console');
    await screenshot(tab, 'server-console-390');

    // The link opened its one connection: the same URL again opens nothing.
    await tab.reload();
    await tab
      .getByRole('status')
      .getByText(/opens with a console link/)
      .waitFor();
    await tab.close();
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
