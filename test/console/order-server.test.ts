import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, readAs, type BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
  DESKTOP,
  PHONE,
  pageWidth,
  closeConsole,
} from '../helpers/browser.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';
import { advance, runningServer } from '../helpers/servers.ts';

// std-2c-4g-50 of the catalogue seed: $12.00 a month.
const PLAN = 'Standard 2 vCPU / 4 GB / 50 GB';
const PLAN_CENTS = 1200;

const customer = (h: Holder) => ({ accountId: h.accountId, key: '', keyId: '' });

/** The text an input's aria-describedby points at. */
function description(page: Page, label: string) {
  return page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}

/** The labels of the servers the list shows now. */
function listed(page: Page) {
  return page.getByTestId('server-list').getByRole('table').getByRole('link').allTextContents();
}

/** Ordering a server and finding servers, in Chromium, as a person does it: by labels, roles and visible text. */
describe.skipIf(!hasChromium)('dashboard: order a server, search the list', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  const pageErrors: string[] = [];
  const serverCount = async (h: Holder) => (await readAs(app, h.accountId, '/servers')).data.length;

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    // A second server, stopped, for the status filter.
    const db = await runningServer(app, customer(holder), { label: 'db-primary' });
    const { key } = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'test',
        scopes: ['servers:read', 'servers:write'],
      })
    ).body;
    const stop = await app.call('POST', `/v1/servers/${db}/power/stop`, { key });
    expect(stop.status, stop.text).toBe(200);
    await advance(app, 60);
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    await browserSignIn(browser.page, app.url, holder.email, holder.password);
  });
  afterAll(() => closeConsole(browser, app));

  it('orders a server: plan, template, label, the price first, then the server provisions live', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    const before = await balance(app, customer(holder));
    await page.goto(`${app.url}/servers`);
    await page.getByRole('link', { name: 'Order a server' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Order a server' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/servers/new');

    const price = page.getByTestId('order-price');
    await price.getByText('Choose a plan to see its price.').waitFor();
    await price.getByText(`Wallet balance: $${(before / 100).toFixed(2)}`).waitFor();
    await page.getByRole('radio', { name: PLAN }).check();
    await price.getByText('$12.00 per month, the first month charged from your wallet now.').waitFor();
    await page.getByLabel('Operating system').selectOption({ label: 'Debian 12' });
    await page.getByLabel('Label', { exact: true }).fill('api-2');

    // The page must not load again on the way: a marker on the window survives only without a reload.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    // The order is held back a moment so its progress state can be seen.
    await page.route('**/graphql', async (route) => {
      if (route.request().postData()?.includes('serverOrder')) await new Promise((r) => setTimeout(r, 700));
      await route.continue();
    });
    // Enter in the label field orders: the form works from the keyboard.
    await page.getByLabel('Label', { exact: true }).press('Enter');
    await page.getByRole('button', { name: 'Ordering…', disabled: true }).waitFor();

    await page.getByRole('heading', { level: 1, name: /api-2/ }).waitFor({ timeout: 10_000 });
    await page.unroute('**/graphql');
    expect(new URL(page.url()).pathname).toMatch(/^\/servers\/srv_/);
    await page.getByTestId('server-status').getByText('provisioning').waitFor();
    await page.getByText('linux / debian-12').waitFor();

    await advance(app, 180);
    await page.getByTestId('server-status').getByText('running').waitFor({ timeout: 10_000 });
    await expect(page.evaluate(() => 'sameDocument' in window)).resolves.toBe(true);
    expect(await balance(app, customer(holder))).toBe(before - PLAN_CENTS);
    await screenshot(page, 'order-server-running');
  }, 30_000);

  it('refuses an empty label next to the field and orders nothing', async () => {
    const { page } = browser;
    const count = await serverCount(holder);
    const before = await balance(app, customer(holder));
    await page.goto(`${app.url}/servers/new`);
    await page.getByRole('radio', { name: PLAN }).check();
    await page.getByRole('button', { name: 'Order server' }).click();
    await page.getByText('Give the server a label.').waitFor();
    const input = page.getByLabel('Label', { exact: true });
    await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(description(page, 'Label')).resolves.toContain('Give the server a label.');
    expect(new URL(page.url()).pathname).toBe('/servers/new');
    expect(await serverCount(holder)).toBe(count);
    expect(await balance(app, customer(holder))).toBe(before);

    // No plan chosen: the plan's own error, on the radios.
    await page.reload();
    await page.getByLabel('Label', { exact: true }).fill('api-3');
    await page.getByRole('button', { name: 'Order server' }).click();
    await page.getByText('Choose a plan.').waitFor();
    await expect(page.getByRole('radio', { name: PLAN }).getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await serverCount(holder)).toBe(count);
  });

  it('narrows the server list by label search and by status', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/servers`);
    await page.getByTestId('server-list').getByRole('link', { name: 'web-1' }).waitFor();
    await expect.poll(() => listed(page)).toEqual(['api-2', 'db-primary', 'web-1']);

    await page.getByLabel('Search by label').fill('DB');
    await expect.poll(() => listed(page)).toEqual(['db-primary']);
    await page.getByLabel('Search by label').fill('no-such-server');
    await page.getByText('No servers match “no-such-server”.').waitFor();

    await page.getByLabel('Search by label').fill('');
    await page.getByLabel('Status').selectOption('stopped');
    await expect.poll(() => listed(page)).toEqual(['db-primary']);
    await page.getByLabel('Status').selectOption('running');
    await expect.poll(() => listed(page)).toEqual(['api-2', 'web-1']);
    await page.getByLabel('Status').selectOption('suspended');
    await page.getByText('No servers match status suspended.').waitFor();
  });

  it('fits /servers and /servers/new into a phone screen without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    const wide: string[] = [];
    await page.goto(`${app.url}/servers`);
    await page.getByTestId('server-list').getByRole('link', { name: 'web-1' }).waitFor();
    let width = await pageWidth(page);
    if (width.scroll > width.window) wide.push(`/servers: ${width.scroll} px`);
    await page.goto(`${app.url}/servers/new`);
    await page.getByRole('radio', { name: PLAN }).check();
    await page.getByTestId('order-price').getByText('per month, the first month').waitFor();
    width = await pageWidth(page);
    if (width.scroll > width.window) wide.push(`/servers/new: ${width.scroll} px`);
    await screenshot(page, 'order-server-phone');
    expect(wide).toEqual([]);
  });

  it('refuses an order the wallet cannot pay, with a way to top up, and orders nothing', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    const poor = await accountHolder(app, { walletBalanceUsdCents: 100 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await browserSignIn(page, app.url, poor.email, poor.password, '/servers');
    // No servers at all: the list says so and offers the order.
    await page.getByTestId('server-list').getByText('No servers yet.').waitFor();
    await page.getByTestId('server-list').getByRole('link', { name: 'Order a server' }).click();

    await page.getByRole('radio', { name: PLAN }).check();
    await page.getByLabel('Label', { exact: true }).fill('too-dear');
    await page.getByRole('button', { name: 'Order server' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText(/Insufficient wallet balance: .*nothing was ordered/).waitFor();
    await expect(alert.getByRole('link', { name: 'Top up the wallet' }).getAttribute('href')).resolves.toBe('/billing');
    await page.getByRole('button', { name: 'Order server', disabled: false }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/servers/new');
    expect(await serverCount(poor)).toBe(0);
    expect(await balance(app, customer(poor))).toBe(100);
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
