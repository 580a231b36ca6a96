import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.ts';
import { ALL_SCOPES } from '../../src/scopes.ts';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  closeConsole,
  dashboardWithServer,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  screenshot,
  signInLive,
  type Browser,
} from '../helpers/browser.ts';
import { activeHosting } from '../helpers/hosting.ts';
import type { Holder } from '../helpers/oauth.ts';
import { fitsAndPasses } from '../helpers/page-checks.ts';
import { buy } from '../helpers/pools.ts';

/**
 * The smaller things, each as a person meets it, at 1280 and 390 px, axe clean: a server
 * still provisioning says when it renews; live events print their payloads readably, offer every
 * kind and say when a resource id names nothing; git's state reads in words; a sign-in link's
 * session is told why keys are not for it; a pool's deletion names the servers it strands and
 * such a server's page says so; the key form ticks no scope and never shows mm/dd/yyyy.
 */
describe.skipIf(!hasChromium)('dashboard: the small things', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let key: string;
  const pageErrors: string[] = [];

  /** The same checks at both sizes: `ready` shows the state, then the page must fit and pass axe. */
  async function atBothSizes(page: Page, what: string, ready: (size: typeof DESKTOP) => Promise<void>) {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await ready(size);
      await fitsAndPasses(page, what);
      await screenshot(page, `small-${what.replace(/\W+/g, '-')}-${size.width}`);
    }
  }

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'servers:write', 'servers:destroy', 'hosting:read', 'hosting:manage'],
      })
    ).body.key;
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it('a standalone server still provisioning renews "a month after it is running", not "with its pool"', async () => {
    const { page } = browser;
    const order = await app.admin('POST', `/admin/accounts/${holder.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'fresh-1',
      os: 'linux',
      osTemplate: 'debian-12',
    });
    expect(order.status, order.text).toBe(201);
    await atBothSizes(page, 'provisioning server', async () => {
      await page.goto(`${app.url}/servers/${order.body.id}`);
      await page.getByTestId('server-status').getByText('provisioning').waitFor();
      await expect(page.getByTestId('server-renews').textContent()).resolves.toBe('a month after it is running');
    });
  });

  // Two sizes, four filters and axe: on a machine running the whole suite this outlasts the default 30 s.
  it('live events: payloads printed readably, every kind offered whichever is chosen, an id naming nothing said so', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    await atBothSizes(page, 'live events', async () => {
      await page.goto(`${app.url}/events`);
      const feed = page.getByTestId('event-feed');
      await feed.getByText('server.created').first().waitFor({ timeout: 10_000 });
      // Indented JSON, one field a line, wrapped inside the card.
      const payload = feed.locator('li', { hasText: 'server.created' }).first().locator('pre');
      const printed = (await payload.textContent()) ?? '';
      expect(printed).toMatch(/^\{\n {2}"\w+": .+,\n {2}"\w+": /);
      expect(printed).toContain(`"serverId": "${serverId}"`);
    });
    const kind = page.getByLabel('Kind');
    const every = Object.keys(EVENT_TYPES).length;
    await kind.selectOption('server.created');
    await expect
      .poll(async () => [...new Set(await page.getByTestId('event-feed').locator('.type').allTextContents())])
      .toEqual(['server.created']);
    // The filter still offers every kind (not only the one chosen), so another can be picked at once.
    await expect(kind.locator('option').count()).resolves.toBe(every + 1);
    await kind.selectOption('server.power.changed');
    await page.getByTestId('no-events').getByText('No server.power.changed events yet.').waitFor();
    await kind.selectOption('');

    const resource = page.getByLabel('Resource id');
    // An event arriving while someone types re-renders the page: what they typed stays.
    await resource.fill('srv_0000000000000000000000000a');
    const invoice = await app.admin('POST', `/admin/accounts/${holder.accountId}/invoices`, {
      items: [{ description: 'Typed over?', amountUsdCents: 100 }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    await app.runDueWork();
    await page.getByTestId('event-feed').getByText('invoice.created').first().waitFor({ timeout: 10_000 });
    await expect(resource.inputValue()).resolves.toBe('srv_0000000000000000000000000a');
    await resource.press('Enter');
    await page
      .getByTestId('no-events')
      .getByText(/^No event names srv_0{25}a: check the id/)
      .waitFor();
    await resource.fill('nonsense');
    await resource.press('Enter');
    await expect.poll(() => resource.getAttribute('aria-invalid')).toBe('true');
    await page
      .getByRole('alert')
      .getByText(/^Resource must be a resource id such as srv_…\.$/)
      .waitFor();
    await fitsAndPasses(page, 'events refused');
  });

  it('git deploy reads "not connected", not not_connected', async () => {
    const { page } = browser;
    const hostingId = await activeHosting(app, { accountId: holder.accountId, key, keyId: '' });
    await atBothSizes(page, 'git', async () => {
      await page.goto(`${app.url}/hosting/${hostingId}/git`);
      await page.getByTestId('git-status').getByText('not connected', { exact: true }).waitFor();
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(): what the reader sees
      expect(await page.locator('main').innerText()).not.toContain('not_connected');
    });
  });

  it("a session opened from a server's sign-in link is told why keys are not for it, with a way to sign in", async () => {
    const other = await launchBrowser();
    try {
      const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key });
      const keyRequests: string[] = [];
      other.page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/dashboard/api/keys')) keyRequests.push(r.url());
      });
      await other.page.goto(link.body.url);
      await other.page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
      for (const size of [DESKTOP, PHONE]) {
        await other.page.setViewportSize(size);
        // Through the navigation, as a person goes there (the Menu first on a phone).
        if (size === PHONE) await other.page.getByRole('button', { name: 'Menu' }).click();
        await other.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click();
        const refusal = other.page.getByTestId('keys-refused');
        await refusal.getByText(/sign in with your password/).waitFor();
        await expect(
          refusal.getByRole('link', { name: 'sign in with your password' }).getAttribute('href'),
        ).resolves.toBe('/sign-in?next=/keys');
        await expect(other.page.getByText('Loading…').count()).resolves.toBe(0);
        await fitsAndPasses(other.page, 'keys of a link session');
        if (size === DESKTOP)
          await other.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
      }
      expect(keyRequests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('deleting a pool names the servers it keeps; such a server says it cannot start again, and why', async () => {
    const { page } = browser;
    const customer = { accountId: holder.accountId, key, keyId: '' };
    const pool = await buy(app, customer);
    const member = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key,
      body: { productId: 'std-1c-2g-50', label: 'kept-1', osTemplate: 'debian-12' },
    });
    expect(member.status, member.text).toBe(200);
    await app.runDueWork();
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/pools/${pool.id}`);
    await page.getByRole('button', { name: 'Delete pool' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'Delete cluster?' });
    await dialog.getByText(/^Its server \(kept-1\) is powered off and kept: .* never started again\./).waitFor();
    await dialog.getByRole('button', { name: 'Delete pool' }).click();
    await page.waitForURL((u) => u.pathname === '/pools');

    await atBothSizes(page, 'kept server', async () => {
      await page.goto(`${app.url}/servers/${member.body.id}`);
      await page
        .getByTestId('server-preserved')
        .getByText(/cannot be started again/)
        .waitFor({ timeout: 10_000 });
      await expect(page.getByTestId('server-renews').textContent()).resolves.toBe('never: its pool was deleted');
      await page.getByRole('button', { name: 'Start', exact: true, disabled: true }).waitFor();
    });
  });

  it('the key form ticks no scope and takes its expiry as a choice or YYYY-MM-DD, never mm/dd/yyyy', async () => {
    const { page } = browser;
    await atBothSizes(page, 'key form', async () => {
      await page.goto(`${app.url}/keys`);
      const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Mint key' }) });
      await form.getByRole('checkbox').first().waitFor();
      const boxes = await form.getByRole('checkbox').all();
      expect(boxes.length).toBe(ALL_SCOPES.length);
      for (const box of boxes) await expect(box.isChecked()).resolves.toBe(false);
      await expect(page.getByRole('button', { name: 'Mint key' }).isDisabled()).resolves.toBe(true);
      // No date input anywhere: the browser would show it in its own locale's order.
      await expect(page.locator('input[type="date"]').count()).resolves.toBe(0);
      await form.getByLabel('Expires').selectOption('In 30 days');
      await form.getByText(/^It stops working at the end of \d{4}-\d{2}-\d{2} \(UTC\)\.$/).waitFor();
      await form.getByLabel('Expires').selectOption('On a date…');
      await expect(form.getByLabel('Expiry date (YYYY-MM-DD)').getAttribute('placeholder')).resolves.toMatch(
        /^\d{4}-\d{2}-\d{2}$/,
      );
      await form.getByRole('button', { name: 'Every read scope' }).click();
      await expect(form.getByRole('checkbox', { checked: true }).count()).resolves.toBe(
        ALL_SCOPES.filter((s) => s.endsWith(':read')).length,
      );
      await expect(form.getByRole('checkbox', { name: 'servers:write' }).isChecked()).resolves.toBe(false);
      await expect(form.getByRole('checkbox', { name: 'servers:read' }).isChecked()).resolves.toBe(true);
    });
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
