import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, readAs, type BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
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
import { advance } from '../helpers/servers.ts';

// pool-fra1 rates: vcpu 400, ram2gb 500, disk100 300, ip16 3200 cents a month. The buy page starts at
// 4 vCPU, 4 × 2 GB RAM, 1 × 100 GB disk, 1 × 16 addresses: $71.00.
const PLAN = 'Standard 2 vCPU / 4 GB / 50 GB';
const customer = (h: Holder) => ({ accountId: h.accountId, key: '', keyId: '' });

/** The text an element's aria-describedby points at. */
function description(locator: Locator) {
  return locator.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}

/** Capacity pools in Chromium as a person uses them: buying with sliders, servers inside, addresses, resizing. */
describe.skipIf(!hasChromium)('dashboard: capacity pools', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let key: string;
  let poolId = '';
  const pageErrors: string[] = [];
  /** Reads through the public API, as another client of the account would. */
  const read = (p: string, accountId = holder.accountId) => readAs(app, accountId, p);
  const poolServers = async (): Promise<{ id: string }[]> =>
    (await read('/servers')).data
      .filter((s: { pool_id?: string; poolId?: string }) => (s.pool_id ?? s.poolId) === poolId)
      .sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
  const poolIps = async (): Promise<{ ip: string; assignedTo: string | null }[]> =>
    (await read(`/pools/${poolId}/ips`)).data;
  const pool = () => read(`/pools/${poolId}`);
  const poolCount = async (accountId: string) => (await read('/pools', accountId)).data.length;

  /** Creates a server in the pool through the public API, as another client would. */
  async function apiServer(label: string, ipCount = 1) {
    const r = await app.call('POST', `/v1/pools/${poolId}/servers`, {
      key,
      body: { productId: 'std-2c-4g-50', label, osTemplate: 'ubuntu-24.04', ipCount },
    });
    expect(r.status, r.text).toBe(200);
    return r.body.id as string;
  }

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    ({ key } = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'test',
        scopes: ['servers:read', 'servers:write'],
      })
    ).body);
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    // A step that does not happen fails with its locator well before the test's own time-out.
    browser.page.setDefaultTimeout(10_000);
    await browserSignIn(browser.page, app.url, holder.email, holder.password);
    await browser.page.getByTestId('live-status').getByText('live').waitFor();
  });
  afterAll(() => closeConsole(browser, app));

  it('opens Capacity pools from the header: no pools yet, a way to buy one', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('navigation').getByRole('link', { name: 'Capacity pools' }).click();
    await page.getByRole('heading', { level: 1, name: 'Capacity pools' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/pools');
    const list = page.getByTestId('pool-list');
    await list.getByText('No capacity pools yet.').waitFor();
    await expect(list.getByRole('link', { name: 'Buy a pool' }).getAttribute('href')).resolves.toBe('/pools/new');
    // The link above the list too.
    await expect(page.getByRole('link', { name: 'Buy a pool' }).count()).resolves.toBe(2);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('buys a pool with the sliders: the quote follows each slider, then the pool page', async () => {
    const { page } = browser;
    const before = await balance(app, customer(holder));
    await page.getByRole('link', { name: 'Buy a pool' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Buy a capacity pool' }).waitFor();
    await page.getByRole('radio', { name: /Frankfurt/ }).check();

    const quote = page.getByTestId('pool-quote');
    await quote.getByText('$71.00 per month').waitFor();
    await quote.getByText('Charged now: $71.00, the first month, from your wallet.').waitFor();
    const vcpu = page.getByRole('slider', { name: 'vCPUs' });
    await expect(vcpu.getAttribute('min')).resolves.toBe('2');
    await expect(vcpu.getAttribute('max')).resolves.toBe('64');

    // Quotes are held back a moment so the wait can be seen.
    await page.route('**/graphql', async (route) => {
      if (route.request().postData()?.includes('poolQuote')) await new Promise((r) => setTimeout(r, 600));
      await route.continue();
    });
    await vcpu.focus();
    await vcpu.press('ArrowRight');
    await expect(vcpu.getAttribute('aria-valuetext')).resolves.toBe('5 vCPU');
    await page.getByTestId('buy-vcpu-value').getByText('5 vCPU').waitFor();
    await page.locator('[data-testid="pool-quote"][aria-busy="true"]').waitFor();
    await quote.getByText('$75.00 per month').waitFor();
    await page.unroute('**/graphql');

    const ram = page.getByRole('slider', { name: 'RAM' });
    for (let i = 0; i < 4; i++) await ram.press('ArrowRight');
    await page.getByRole('slider', { name: 'Disk' }).press('ArrowRight');
    await page.getByTestId('buy-ram2gb-value').getByText('16 GB').waitFor();
    await quote.getByText('$98.00 per month').waitFor();
    await quote.getByText('Charged now: $98.00').waitFor();

    // No label: refused beside the field, nothing bought.
    await page.getByRole('button', { name: 'Buy pool' }).click();
    await page.getByText('Give the pool a label.').waitFor();
    await expect(description(page.getByLabel('Label', { exact: true }))).resolves.toContain('Give the pool a label.');
    expect(await poolCount(holder.accountId)).toBe(0);

    await page.getByLabel('Label', { exact: true }).fill('cluster');
    // Buying charges the wallet: asked first, with the sum; cancelling buys nothing.
    await page.getByRole('button', { name: 'Buy pool' }).click();
    const confirmBuy = page.getByRole('dialog', { name: 'Buy the pool “cluster”?' });
    await confirmBuy.getByText(/^\$98\.00 is charged now from your wallet/).waitFor();
    await confirmBuy.getByRole('button', { name: 'Cancel' }).click();
    await confirmBuy.waitFor({ state: 'hidden' });
    expect(await poolCount(holder.accountId)).toBe(0);
    await page.getByRole('button', { name: 'Buy pool' }).click();
    await confirmBuy.getByRole('button', { name: 'Pay $98.00 and buy' }).click();
    await page.getByRole('heading', { level: 1, name: /cluster/ }).waitFor({ timeout: 10_000 });
    poolId = /^\/pools\/(pool_\w+)$/.exec(new URL(page.url()).pathname)?.[1] ?? '';
    expect(poolId).not.toBe('');
    await page.getByTestId('pool-shape').getByText('5 vCPU · 16 GB RAM · 200 GB disk · 16 IPv4').waitFor();
    await page.getByTestId('pool-facts').getByText('$98.00').waitFor();
    expect(await balance(app, customer(holder))).toBe(before - 9800);
    await page.getByTestId('pool-servers').getByText('No servers in this pool yet.').waitFor();
  }, 30_000);

  it('creates a server in the pool; it becomes running on the page without a reload', async () => {
    const { page } = browser;
    const form = page.getByTestId('pool-server-create');
    await form.getByLabel('Server label').fill('node-1');
    await form.getByLabel('Size').selectOption({ label: PLAN });
    await form.getByLabel('System').selectOption({ label: 'Debian 12' });
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await form.getByRole('button', { name: 'Create server' }).click();
    await form.getByText('node-1 is being created').waitFor();

    const [node1] = await poolServers();
    const row = page.getByTestId(`pool-server-${node1.id}`);
    await row.getByTestId('server-status').getByText('provisioning').waitFor({ timeout: 10_000 });
    await page.getByTestId('usage-vcpu').getByText('2 vCPU of 5 vCPU used').waitFor();

    await advance(app, 180);
    await row.getByTestId('server-status').getByText('running').waitFor({ timeout: 10_000 });
    await expect(page.evaluate(() => 'sameDocument' in window)).resolves.toBe(true);
    await expect(row.getByRole('link', { name: 'node-1' }).getAttribute('href')).resolves.toBe(`/servers/${node1.id}`);
    await expect(page.getByRole('progressbar', { name: 'RAM' }).getAttribute('aria-valuetext')).resolves.toBe(
      '4 GB of 16 GB used',
    );
  }, 30_000);

  it('moves an address from one server of the pool to another', async () => {
    const { page } = browser;
    const node2 = await apiServer('node-2');
    await advance(app, 180);
    await page.getByTestId(`pool-server-${node2}`).getByTestId('server-status').getByText('running').waitFor({
      timeout: 10_000,
    });
    const [node1] = await poolServers();
    const ip = (await poolIps()).find((a) => a.assignedTo === node1.id)!.ip;
    const row = page.getByTestId(`pool-ip-${ip}`);
    await row.getByTestId('ip-holder').getByText('node-1').waitFor();
    const apply = page.getByRole('button', { name: 'Apply changes' });
    await expect(apply.isDisabled()).resolves.toBe(true);

    await row.getByLabel(`Move ${ip} to`).selectOption({ label: 'node-2' });
    // Free addresses are listed on demand; one of them goes to node-1 in the same batch.
    const free = { address: (await poolIps()).find((a) => a.assignedTo === null)!.ip };
    const freeRow = page.getByTestId(`pool-ip-${free.address}`);
    await expect(freeRow.count()).resolves.toBe(0);
    await page.getByLabel('Show the 14 free addresses').check();
    await freeRow.getByTestId('ip-holder').getByText('free').waitFor();
    await freeRow.getByLabel(`Move ${free.address} to`).selectOption({ label: 'node-1' });
    await page.getByRole('button', { name: 'Apply 2 changes' }).click();
    await page.getByText('2 addresses were moved.').waitFor();
    await row.getByTestId('ip-holder').getByText('node-2').waitFor();
    await freeRow.getByTestId('ip-holder').getByText('node-1').waitFor();
    const moved = await poolIps();
    expect(moved.find((a) => a.ip === ip)!.assignedTo).toBe(node2);
    expect(moved.find((a) => a.ip === free.address)!.assignedTo).toBe(node1.id);
  }, 30_000);

  it('resizes: a size below what the servers hold is refused by its quote; growth is priced, then confirmed', async () => {
    const { page } = browser;
    const section = page.getByTestId('pool-resize');
    const vcpu = section.getByRole('slider', { name: 'vCPUs' });
    const resize = section.getByRole('button', { name: 'Resize pool' });
    await expect(resize.isDisabled()).resolves.toBe(true);

    // Two servers hold 4 vCPU: the API's own rule refuses 2, and the page cannot send it.
    await vcpu.press('Home');
    await section.getByText(/servers hold more than this shape/).waitFor();
    await expect(resize.isDisabled()).resolves.toBe(true);
    await expect(description(resize)).resolves.toBe('This size cannot be had; see the reason above.');

    await section.getByRole('button', { name: 'Reset' }).click();
    await vcpu.press('ArrowRight');
    await page.getByTestId('resize-vcpu-value').getByText('6 vCPU').waitFor();
    const priced = await app.call('POST', `/v1/pools/${poolId}/resize-quote`, {
      key,
      body: { vcpu: 6, ram2gb: 8, disk100: 2, ip16: 1 },
    });
    expect(priced.status, priced.text).toBe(200);
    const charge = priced.body.charge_now_usd_cents as number;
    const chargeText = `$${(charge / 100).toFixed(2)}`;
    const quote = page.getByTestId('resize-quote');
    await quote.getByText('$102.00 per month').waitFor();
    await quote.getByText('+$4.00 on $98.00', { exact: false }).waitFor();
    await page.getByTestId('resize-charge-now').getByText(`Charged now: ${chargeText}`).waitFor();

    const before = await balance(app, customer(holder));
    await resize.click();
    const dialog = page.getByRole('dialog', { name: 'Resize the pool?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await pool()).vcpu).toBe(5);
    await resize.click();
    await dialog.getByRole('button', { name: `Resize and pay ${chargeText}` }).click();
    await page.getByTestId('pool-shape').getByText('6 vCPU · 16 GB RAM').waitFor({ timeout: 10_000 });
    expect((await pool()).vcpu).toBe(6);
    expect(await balance(app, customer(holder))).toBe(before - charge);
  }, 30_000);

  it('shows a resize made through the public API while the pool page is open, without a reload', async () => {
    const { page } = browser;
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    const shape = page.getByTestId('pool-shape');
    const monthly = page.getByTestId('pool-monthly');
    const disk = page.getByTestId('pool-resize').getByRole('slider', { name: 'Disk' });
    await shape.getByText('6 vCPU · 16 GB RAM · 200 GB disk · 16 IPv4').waitFor();
    await monthly.getByText('$102.00').waitFor();
    await expect(disk.getAttribute('aria-valuetext')).resolves.toBe('200 GB');

    const resize = (disk100: number) =>
      app.call('PATCH', `/v1/pools/${poolId}`, { key, body: { vcpu: 6, ram2gb: 8, disk100, ip16: 1 } });
    expect((await resize(3)).status).toBe(200);
    await shape.getByText('6 vCPU · 16 GB RAM · 300 GB disk · 16 IPv4').waitFor({ timeout: 10_000 });
    await monthly.getByText('$105.00').waitFor();
    // The resize form starts again from the new size.
    await expect(disk.getAttribute('aria-valuetext')).resolves.toBe('300 GB');

    // And back, so the pool is as the next steps expect it.
    expect((await resize(2)).status).toBe(200);
    await shape.getByText('6 vCPU · 16 GB RAM · 200 GB disk · 16 IPv4').waitFor({ timeout: 10_000 });
    await monthly.getByText('$102.00').waitFor();
    await expect(page.evaluate(() => 'sameDocument' in window)).resolves.toBe(true);
  }, 30_000);

  it("shows the API's refusal beside the size when the pool filled up meanwhile, and creates nothing", async () => {
    const { page } = browser;
    // Another client's new server reaches an open pool page as a live change, at once; to meet the
    // API's own refusal the page must not have heard it yet, as when that change is still on its
    // way. So this page's socket holds live changes back while the other client orders.
    let holdChanges = false;
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => {
        if (!(holdChanges && String(m).includes('"liveChanges"'))) ws.send(m);
      });
    });
    await page.goto(`${app.url}/pools/${poolId}`);
    await page.getByTestId('live-status').getByText('live').waitFor();
    const form = page.getByTestId('pool-server-create');
    await form.getByText('Free now: 2 vCPU').waitFor();
    // It takes the last 2 vCPU with a private-only server: no address of the pool moves (no pool
    // event either).
    holdChanges = true;
    await apiServer('node-3', 0);
    const count = (await poolServers()).length;
    const before = await balance(app, customer(holder));

    await form.getByLabel('Server label').fill('node-4');
    await form.getByLabel('Size').selectOption({ label: PLAN });
    await form.getByRole('button', { name: 'Create server' }).click();
    const size = form.getByLabel('Size');
    await form.getByText(/The pool quota does not fit std-2c-4g-50/).waitFor();
    await expect(size.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(description(size)).resolves.toMatch(/vcpu needs 2, 0 free/);
    expect((await poolServers()).length).toBe(count);
    expect(await balance(app, customer(holder))).toBe(before);

    // node-3 runs (server.created): the page reads the pool again and the plan no longer fits.
    holdChanges = false;
    await advance(app, 180);
    await form.getByText('Free now: 0 vCPU').waitFor({ timeout: 10_000 });
    await expect(form.getByRole('button', { name: 'Create server' }).isDisabled()).resolves.toBe(true);
  }, 30_000);

  it('fits every pool page into a phone screen; axe-core finds nothing serious at either size', async () => {
    const { page } = browser;
    const pages: [string, string, (p: Page) => Promise<void>][] = [
      ['/pools', 'list', (p) => p.getByTestId(`pool-${poolId}`).waitFor()],
      ['/pools/new', 'new', (p) => p.getByTestId('pool-quote').getByText('per month').waitFor()],
      [`/pools/${poolId}`, 'pool', (p) => p.getByTestId('pool-servers').getByText('node-3').waitFor()],
    ];
    const wide: string[] = [];
    const violations: string[] = [];
    /** Usage rows narrower than the usage card: laid out by another page's rules for `.usage`. */
    const narrowRows: string[] = [];
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const [path, name, ready] of pages) {
        await page.goto(`${app.url}${path}`);
        await ready(page);
        const width = await pageWidth(page);
        if (width.scroll > width.window) wide.push(`${path} at ${size.width}: ${width.scroll} px`);
        violations.push(...(await axeViolations(page)).map((v) => `${path} at ${size.width}: ${v}`));
        if (name === 'pool') {
          const rows = await page
            .getByTestId('pool-usage')
            .evaluate((usage) =>
              [...usage.children].map((row) => row.getBoundingClientRect().width / usage.clientWidth),
            );
          expect(rows).toHaveLength(4);
          narrowRows.push(...rows.filter((share) => share < 0.99).map((share) => `${size.width}: ${share.toFixed(2)}`));
        }
        await screenshot(page, `pools-${name}-${size === PHONE ? 'phone' : 'desktop'}`);
      }
    }
    expect(wide).toEqual([]);
    expect(violations).toEqual([]);
    expect(narrowRows).toEqual([]);
    await page.setViewportSize(DESKTOP);
  }, 60_000);

  it('lists the pool with its price and usage, and deletes it after a confirm', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/pools`);
    const row = page.getByTestId(`pool-${poolId}`);
    await row.getByRole('cell', { name: '$102.00' }).waitFor();
    await row.getByText('3 servers · 6 of 6 vCPU').waitFor();
    await row.getByRole('link', { name: 'cluster' }).click();
    await page.getByRole('heading', { level: 1, name: /cluster/ }).waitFor();

    await page.getByRole('button', { name: 'Delete pool' }).click();
    // ConfirmButton's dialog has no accessible name of its own: found by its question.
    const dialog = page.getByRole('dialog').filter({ hasText: 'Delete cluster?' });
    await dialog
      .getByText(/^Its 3 servers \(node-\d, node-\d, node-\d\) are powered off and kept: .* never started again\./)
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await pool()).status).toBe('active');

    await page.getByRole('button', { name: 'Delete pool' }).click();
    await dialog.getByRole('button', { name: 'Delete pool' }).click();
    await page.getByTestId('pool-list').getByText('No capacity pools yet.').waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe('/pools');
    expect(await app.call('GET', `/v1/pools/${poolId}`, { key }).then((r) => r.status)).toBe(404);
  }, 30_000);

  it('explains a purchase the wallet cannot pay, with a way to the wallet, and buys nothing', async () => {
    const { page } = browser;
    const poor = await accountHolder(app, { walletBalanceUsdCents: 1000 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await browserSignIn(page, app.url, poor.email, poor.password, '/pools/new');
    await page.getByTestId('pool-quote').getByText('per month').waitFor();
    await page.getByTestId('pool-quote').getByText('The balance does not cover the first month.').waitFor();
    await page.getByLabel('Label', { exact: true }).fill('too-dear');
    await page.getByRole('button', { name: 'Buy pool' }).click();
    await page
      .getByRole('dialog', { name: 'Buy the pool “too-dear”?' })
      .getByRole('button', { name: /and buy$/ })
      .click();
    const alert = page.getByRole('alert');
    await alert.getByText(/Insufficient wallet balance: .*nothing was charged/).waitFor();
    await expect(alert.getByRole('link', { name: 'Top up the wallet' }).getAttribute('href')).resolves.toBe('/billing');
    expect(new URL(page.url()).pathname).toBe('/pools/new');
    expect(await poolCount(poor.accountId)).toBe(0);
    expect(await balance(app, customer(poor))).toBe(1000);
  }, 30_000);

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
