import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  browserSignIn,
  renewSession,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
  DESKTOP,
  PHONE,
  pageWidth,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';

/** The reason a disabled button gives assistive tech: the text its aria-describedby points at. */
function description(page: Page, name: string) {
  return page.getByRole('button', { name, exact: true }).evaluate(
    (b) =>
      (b.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim() || null,
  );
}

/** Waits until the button is in that state (the page updates live, so this may take a moment). */
function buttonState(page: Page, name: string, state: 'enabled' | 'disabled') {
  return page.getByRole('button', { name, exact: true, disabled: state === 'disabled' }).waitFor({ timeout: 10_000 });
}

/** The console's state-dependent parts in Chromium: power buttons, phone layouts, overview links. */
describe.skipIf(!hasChromium)('dashboard console states in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let key: string;
  let signInWidth: { scroll: number; window: number };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    // A key with a long name, and a webhook with a delivery: the widest rows the pages show.
    key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'deploy robot of the staging cluster',
        scopes: ['servers:read', 'servers:write', 'webhooks:read', 'webhooks:write'],
      })
    ).body.key;
    const hook = await app.call('POST', '/v1/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:9/hooks/a-rather-long-path/for-a-narrow-screen', events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(200);
    // The sign-in form is measured on the way in, so a failure there does not sign the other tests out.
    const { page } = browser;
    await page.setViewportSize(PHONE);
    await page.goto(app.url);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    signInWidth = await pageWidth(page);
    await browserSignIn(page, app.url, holder.email, holder.password);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('fits the sign-in page into a phone screen', () => {
    expect(signInWidth.scroll).toBeLessThanOrEqual(signInWidth.window);
  });

  it('offers Start only on a stopped server, Stop and Reboot only on a running one, live', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/servers/${serverId}`);
    await page.getByRole('heading', { name: /web-1/ }).waitFor();
    await page.getByTestId('server-status').getByText('running').waitFor();

    await buttonState(page, 'Start', 'disabled');
    await buttonState(page, 'Stop', 'enabled');
    await buttonState(page, 'Reboot', 'enabled');
    await expect(description(page, 'Start')).resolves.toBe('The server is already running.');
    await expect(page.getByRole('button', { name: 'Start', exact: true }).getAttribute('title')).resolves.toBe(
      'The server is already running.',
    );
    await expect(description(page, 'Stop')).resolves.toBeNull();

    // Stop through the page: Start comes on, Stop and Reboot go off, each saying why.
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Stop server' }).click();
    await page.getByTestId('server-status').getByText('stopped').waitFor({ timeout: 10_000 });
    await buttonState(page, 'Start', 'enabled');
    await buttonState(page, 'Stop', 'disabled');
    await buttonState(page, 'Reboot', 'disabled');
    await expect(description(page, 'Stop')).resolves.toBe('The server is already stopped.');
    await expect(description(page, 'Reboot')).resolves.toMatch(/Only a running server can be rebooted/);
    await expect(description(page, 'Start')).resolves.toBeNull();
    await screenshot(page, 'console-server-stopped');

    // A start made elsewhere (REST) turns the buttons back without a reload.
    const start = await app.call('POST', `/v1/servers/${serverId}/power/start`, { key });
    expect(start.status, start.text).toBe(200);
    await page.getByTestId('server-status').getByText('running').waitFor({ timeout: 10_000 });
    await buttonState(page, 'Start', 'disabled');
    await buttonState(page, 'Stop', 'enabled');
  });

  it('offers no power action while the server reboots', async () => {
    const { page } = browser;
    const reboot = await app.call('POST', `/v1/servers/${serverId}/power/reboot`, { key });
    expect(reboot.status, reboot.text).toBe(200);
    await page.getByTestId('server-status').getByText('rebooting').waitFor({ timeout: 10_000 });
    for (const name of ['Start', 'Stop', 'Reboot']) {
      await buttonState(page, name, 'disabled');
      await expect(description(page, name)).resolves.toMatch(/rebooting/);
    }
  });

  it('shows each API key as a card on a phone, still as a table, with nothing scrolling sideways', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    await page.goto(`${app.url}/keys`);
    const table = page.getByRole('table');
    await table.getByRole('cell', { name: 'deploy robot of the staging cluster' }).waitFor();
    const width = await pageWidth(page);
    expect(width.scroll).toBeLessThanOrEqual(width.window);
    // No sideways scrolling inside the card either: every key is readable at once.
    const card = await table.evaluate((t) => {
      const box = t.closest('section')!;
      return { scroll: box.scrollWidth, client: box.clientWidth, table: t.getBoundingClientRect().width };
    });
    expect(card.scroll).toBeLessThanOrEqual(card.client);
    expect(card.table).toBeLessThanOrEqual(PHONE.width);
    // Chromium's own accessibility tree still sees a table of rows and cells with their headers.
    const cdp = await browser.context.newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { role?: { value: string }; name?: { value: string } }[];
    };
    const roles = nodes.map((n) => n.role?.value);
    expect(roles).toContain('table');
    expect(roles.filter((r) => r === 'columnheader').length).toBe(6);
    expect(nodes.some((n) => n.role?.value === 'cell' && n.name?.value === 'deploy robot of the staging cluster')).toBe(
      true,
    );
    await cdp.detach();
    await table.getByRole('button', { name: 'Revoke', exact: true }).first().waitFor();
    await screenshot(page, 'console-keys-phone');
  });

  it('fits every page into a phone screen without sideways scrolling; axe-core finds nothing serious at either size', async () => {
    const { page } = browser;
    await app.runDueWork();
    // Loading every page in a few seconds is far more than a person does: the sweep runs
    // in a session of its own, so the later tests keep theirs within its 600 requests a minute.
    await renewSession(browser, app.url, holder);
    const pages: [string, (p: Page) => Promise<void>][] = [
      ['/', (p) => p.getByTestId(`server-${serverId}`).waitFor()],
      ['/servers', (p) => p.getByTestId(`server-${serverId}`).waitFor()],
      ['/servers/new', (p) => p.getByRole('heading', { name: 'Order a server' }).waitFor()],
      [`/servers/${serverId}`, (p) => p.getByRole('heading', { name: /web-1/ }).waitFor()],
      ['/keys', (p) => p.getByTestId('keys').waitFor()],
      ['/apps', (p) => p.getByRole('heading', { name: 'Connected apps' }).waitFor()],
      ['/webhooks', (p) => p.getByTestId('deliveries').getByText('server.power.changed').first().waitFor()],
      ['/billing', (p) => p.getByTestId('transactions').getByRole('table').waitFor()],
      ['/events', (p) => p.getByRole('heading', { name: 'Live events' }).waitFor()],
      ['/pools', (p) => p.getByRole('heading', { level: 1, name: 'Capacity pools' }).waitFor()],
      ['/hosting', (p) => p.getByRole('heading', { level: 1, name: 'Web hosting' }).waitFor()],
      ['/mail', (p) => p.getByRole('heading', { level: 1, name: 'Mail' }).waitFor()],
      ['/domains', (p) => p.getByRole('heading', { level: 1, name: 'Domains' }).waitFor()],
      ['/tickets', (p) => p.getByRole('heading', { level: 1, name: 'Support' }).waitFor()],
      ['/oauth/device', (p) => p.getByRole('heading').first().waitFor()],
      ['/no-such-page', (p) => p.getByRole('heading', { name: 'Not found' }).waitFor()],
    ];
    const wide: string[] = [];
    const violations: string[] = [];
    for (const [path, ready] of pages) {
      await page.setViewportSize(PHONE);
      await page.goto(`${app.url}${path}`);
      await ready(page);
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      const width = await pageWidth(page);
      if (width.scroll > width.window) wide.push(`${path}: ${width.scroll} px`);
      // The console's layout is CSS alone, so the same page widened is the page as a desktop loads it.
      for (const size of [PHONE, DESKTOP]) {
        await page.setViewportSize(size);
        for (const v of await axeViolations(page)) violations.push(`${size.width} px ${path}: ${v}`);
      }
    }
    expect(wide).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    await renewSession(browser, app.url, holder);
  }, 120_000);

  it("links the overview to every area of the console, in the navigation's order, and each link opens its page", async () => {
    const { page } = browser;
    // Each area: its link, its path and its page's heading.
    const areas: [string, string, string][] = [
      ['Servers', '/servers', 'Servers'],
      ['Capacity pools', '/pools', 'Capacity pools'],
      ['Web hosting', '/hosting', 'Web hosting'],
      ['Mail', '/mail', 'Mail'],
      ['Domains', '/domains', 'Domains'],
      ['Billing', '/billing', 'Billing'],
      ['Support', '/tickets', 'Support'],
      ['API keys', '/keys', 'API keys'],
      ['Connected apps', '/apps', 'Connected apps'],
      ['Webhooks', '/webhooks', 'Webhooks'],
      ['Live events', '/events', 'Live events'],
      ['Settings', '/settings', 'Settings'],
    ];
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(app.url);
      // Read once the overview has drawn its area links (allTextContents does not wait).
      await page.getByTestId('areas').getByRole('link').last().waitFor();
      await expect(page.getByTestId('areas').getByRole('link').allTextContents()).resolves.toEqual(
        areas.map(([link]) => link),
      );
      // The navigation lists the same areas after Overview, in its groups; on a phone behind the Menu button.
      const nav = page.getByRole('navigation', { name: 'Console' });
      if (size === PHONE) await page.getByRole('button', { name: 'Menu' }).click();
      await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
        'Overview',
        ...areas.map(([link]) => link),
      ]);
      await expect(nav.getByRole('list', { name: 'Compute' }).getByRole('link').allTextContents()).resolves.toEqual([
        'Servers',
        'Capacity pools',
      ]);
      await expect(
        nav.getByRole('list', { name: 'Hosting & mail' }).getByRole('link').allTextContents(),
      ).resolves.toEqual(['Web hosting', 'Mail']);
      await expect(nav.getByRole('list', { name: 'Developer' }).getByRole('link').allTextContents()).resolves.toEqual([
        'API keys',
        'Connected apps',
        'Webhooks',
        'Live events',
      ]);
      // Clicking through is the same at both sizes; once keeps the session within its request budget.
      if (size === PHONE) continue;
      for (const [link, path, heading] of areas) {
        // Back through the header's link: the app navigates without loading the page again.
        await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
        await page.getByTestId('areas').getByRole('link', { name: link, exact: true }).click();
        await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        expect(new URL(page.url()).pathname).toBe(path);
      }
      // The sections' headings lead to their areas, a server's row to its page.
      for (const [testid, link, path] of [
        ['servers', 'Servers', '/servers'],
        ['wallet', 'Wallet', '/billing'],
        ['pools', 'Capacity pools', '/pools'],
        ['hosting', 'Web hosting', '/hosting'],
        ['domains', 'Domains', '/domains'],
        ['tickets', 'Open tickets', '/tickets'],
      ]) {
        await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
        await page.getByTestId(testid).getByRole('link', { name: link, exact: true }).click();
        await page.waitForURL((u) => u.pathname === path);
      }
      await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
      await page.getByTestId(`server-${serverId}`).getByRole('link', { name: 'web-1' }).click();
      await page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/servers/${serverId}`);
    }
    // Every link on the overview leads to an area or to one resource's page within it.
    await page.goto(app.url);
    await page.getByTestId(`server-${serverId}`).waitFor();
    const targets = await page.locator('main a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    const known = new RegExp(`^(/|(${areas.map(([, path]) => path).join('|')})(/[\\w-]+)?)$`);
    expect(targets.filter((href) => !known.test(href ?? ''))).toEqual([]);
    await screenshot(page, 'console-overview');
  }, 90_000);

  it('lists the events from before the events page was opened, the live ones on top, filtered by kind', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    // A fresh load: the tab's live feed starts empty, so what shows is the account's history.
    await page.goto(`${app.url}/events`);
    const feed = page.getByTestId('event-feed');
    await feed.getByText('server.created').first().waitFor({ timeout: 10_000 });
    await page.getByTestId('live-status').getByText('live').waitFor();
    await app.admin('POST', `/admin/accounts/${holder.accountId}/wallet/deposits`, {
      amountUsdCents: 700,
      gateway: 'online',
    });
    await feed.locator('li').first().getByText('wallet.deposit.received').waitFor({ timeout: 10_000 });
    await page.getByLabel('Kind').selectOption('server.created');
    // The page reads the history again for the kind: wait for that answer, not for the old one.
    await expect
      .poll(async () => [...new Set(await feed.locator('.type').allTextContents())])
      .toEqual(['server.created']);
  });

  it("loads the overview with under 150 kB of JavaScript, compressed, all of it the app's own", async () => {
    const { page } = browser;
    const scripts: { url: string; bytes: number }[] = [];
    const collect = async (r: Response) => {
      if (r.request().resourceType() === 'script')
        scripts.push({ url: r.url(), bytes: gzipSync(await r.body()).length });
    };
    page.on('response', collect);
    await page.goto(app.url);
    await page.getByTestId(`server-${serverId}`).waitFor();
    page.off('response', collect);
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((s) => s.url.startsWith(app.url))).toBe(true);
    expect(scripts.reduce((sum, s) => sum + s.bytes, 0)).toBeLessThan(150 * 1024);
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
