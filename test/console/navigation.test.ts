import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  closeConsole,
  dashboardWithServer,
  DESKTOP,
  hasChromium,
  launchBrowser,
  pageWidth,
  PHONE,
  renewSession,
  screenshot,
  signInLive,
  type Browser,
} from '../helpers/browser.ts';
import { activeHosting } from '../helpers/hosting.ts';
import type { Holder } from '../helpers/oauth.ts';
import { buy } from '../helpers/pools.ts';

/** The navigation's links, in order, and the heading of the page each opens. */
const LINKS: [string, string, string][] = [
  ['Overview', '/', 'Overview'],
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

/** What a person sees of the page's background behind a cell: its computed colour. */
const background = (cell: Locator) => cell.evaluate((el) => getComputedStyle(el).backgroundColor);

/**
 * The console's grouped navigation (a column beside the page; a Menu on a phone), lists whose
 * whole rows open their pages (with the keyboard too), and a session's request budget, in Chromium.
 */
describe.skipIf(!hasChromium)('dashboard navigation, whole-row links and the session budget', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let poolId: string;
  let poolServerId: string;
  let hostingId: string;
  let domainId: string;
  let mailDomainId: number;
  let ticketId: string;
  let invoiceNumber: string;
  const pageErrors: string[] = [];
  const domain = `rows-${randomBytes(3).toString('hex')}.com`;

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    const key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'servers:write', 'tickets:write', 'mail:read', 'mail:write'],
      })
    ).body.key as string;
    const customer = { accountId: holder.accountId, key, keyId: '' };
    poolId = (await buy(app, customer)).id;
    const member = await app.call('POST', `/v1/pools/${poolId}/servers`, {
      key,
      body: { productId: 'std-1c-2g-50', label: 'node-1', osTemplate: 'debian-12' },
    });
    expect(member.status, member.text).toBe(200);
    poolServerId = member.body.id;
    hostingId = await activeHosting(app, customer);
    const registered = await app.admin('POST', `/admin/accounts/${holder.accountId}/domains`, {
      domain,
      periodYears: 1,
      charge: true,
    });
    expect(registered.status, registered.text).toBe(201);
    domainId = registered.body.domain.id;
    const mail = await app.call('POST', '/v1/mail/domains', { key, body: { domain } });
    expect(mail.status, mail.text).toBe(200);
    mailDomainId = mail.body.id;
    const ticket = await app.call('POST', '/v1/tickets', {
      key,
      body: { subject: 'Printer on fire', message: 'It smells.', department: 'technical', priority: 'high' },
    });
    expect(ticket.status, ticket.text).toBe(200);
    ticketId = ticket.body.id;
    const invoice = await app.admin('POST', `/admin/accounts/${holder.accountId}/invoices`, {
      items: [{ description: 'Consulting', amountUsdCents: 1234 }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    invoiceNumber = invoice.body.number;
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it('groups the navigation beside the page at 1280 px, marks the page shown, and every link opens its page', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await expect(page.getByRole('button', { name: 'Menu' }).isVisible()).resolves.toBe(false);
    await expect(nav(page).getByRole('link').allTextContents()).resolves.toEqual(LINKS.map(([link]) => link));
    for (const [group, links] of [
      ['Compute', ['Servers', 'Capacity pools']],
      ['Hosting & mail', ['Web hosting', 'Mail']],
      ['Developer', ['API keys', 'Connected apps', 'Webhooks', 'Live events']],
    ] as const)
      await expect(nav(page).getByRole('list', { name: group }).getByRole('link').allTextContents()).resolves.toEqual([
        ...links,
      ]);
    // The column sits left of the page and never over it.
    const column = (await nav(page).boundingBox())!;
    const main = (await page.locator('main').boundingBox())!;
    expect(column.x + column.width).toBeLessThanOrEqual(main.x);
    for (const [link, path, heading] of LINKS) {
      await nav(page).getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
      const current = nav(page).locator('[aria-current="page"]');
      await expect(current.allTextContents()).resolves.toEqual([link]);
    }
    // A detail page marks the list it belongs to.
    await page.goto(`${app.url}/servers/${serverId}`);
    await page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
    await expect(nav(page).locator('[aria-current="page"]').allTextContents()).resolves.toEqual(['Servers']);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'navigation-1280');
  });

  it('on a 390 px phone: a two-row header whose Menu opens the groups; a link or Escape closes it', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    await page.goto(`${app.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const header = (await page.locator('header.top').boundingBox())!;
    // Brand, live badge and Menu on the first row; the account on the second (not four rows of links).
    expect(header.height).toBeLessThanOrEqual(100);
    const menu = page.getByRole('button', { name: 'Menu' });
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(nav(page).isVisible()).resolves.toBe(false);

    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(nav(page).getByRole('link').allTextContents()).resolves.toEqual(LINKS.map(([link]) => link));
    for (const link of await nav(page).getByRole('link').all()) {
      const box = (await link.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    const width = await pageWidth(page);
    expect(width.scroll).toBeLessThanOrEqual(width.window);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'navigation-390-menu');

    // Escape closes it and gives the button its focus back.
    await nav(page).getByRole('link', { name: 'Webhooks' }).focus();
    await page.keyboard.press('Escape');
    await expect(nav(page).isVisible()).resolves.toBe(false);
    await expect(menu.evaluate((b) => b === document.activeElement)).resolves.toBe(true);
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');

    // A link goes to its page and closes the menu; the keyboard opens it as well as a click.
    await page.keyboard.press('Enter');
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await nav(page).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    await expect(nav(page).isVisible()).resolves.toBe(false);
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('opens the page of a row clicked anywhere, at 1280 and 390 px, not only on its link', async () => {
    const { page } = browser;
    // Each list: where it is, the row, a part of the row that is not its link, and where the click leads.
    const lists: [string, (p: Page) => Locator, string, string][] = [
      ['/servers', (p) => p.getByTestId(`server-${serverId}`), 'Plan', `/servers/${serverId}`],
      ['/pools', (p) => p.getByTestId(`pool-${poolId}`), 'Monthly', `/pools/${poolId}`],
      ['/hosting', (p) => p.getByTestId(`hosting-${hostingId}`), 'Plan', `/hosting/${hostingId}`],
      ['/domains', (p) => p.getByTestId(`domain-${domain}`), 'Expires', `/domains/${domainId}`],
      ['/mail', (p) => p.getByTestId(`mail-domain-${domain}`), 'Mailboxes', `/mail/${mailDomainId}`],
      ['/tickets', (p) => p.getByTestId('tickets').locator('tbody tr'), 'Subject', `/tickets/${ticketId}`],
    ];
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const [list, row, cell, target] of lists) {
        await page.goto(`${app.url}${list}`);
        const part = row(page).locator(`td[data-label="${cell}"]`);
        await part.waitFor();
        await expect(part.getByRole('link').count()).resolves.toBe(0);
        // Where the row's own link leads is where a click on the rest of the row leads.
        await expect(row(page).getByRole('link').getAttribute('href')).resolves.toBe(target);
        await part.click();
        await page.waitForURL((u) => u.pathname === target);
      }
      // The overview's lists: a ticket's line opens the ticket from its number too.
      await page.goto(`${app.url}/`);
      await page.getByTestId('tickets').getByText(/^TKT-/).click();
      await page.waitForURL((u) => u.pathname === `/tickets/${ticketId}`);
      // A pool's servers, from a server's size.
      await page.goto(`${app.url}/pools/${poolId}`);
      await page.getByTestId(`pool-server-${poolServerId}`).locator('td[data-label="Size"]').click();
      await page.waitForURL((u) => u.pathname === `/servers/${poolServerId}`);
    }
    // An invoice's row opens its lines; its Pay button keeps its own meaning.
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/billing`);
    const invoice = page.getByTestId(`invoice-${invoiceNumber}`);
    await invoice.getByRole('cell', { name: '$12.34' }).click();
    await invoice.getByText('Consulting').waitFor();
    await expect(
      invoice.getByRole('button', { name: new RegExp(invoiceNumber) }).getAttribute('aria-expanded'),
    ).resolves.toBe('true');
    await invoice.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(invoice.getByText('Consulting').isVisible()).resolves.toBe(true);
  }, 90_000);

  it('reaches the same row links from the keyboard: Tab lights the row, Enter opens the page; axe clean', async () => {
    const { page } = browser;
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(`${app.url}/tickets`);
      const row = page.getByTestId('tickets').locator('tbody tr').first();
      const link = row.getByRole('link');
      await link.waitFor();
      const before = await background(row.locator('td').nth(1));
      // Tab from the page's heading area until the row's link has the focus.
      await page.getByRole('heading', { level: 1, name: 'Support' }).click();
      for (let i = 0; i < 40 && !(await link.evaluate((a) => a === document.activeElement)); i++)
        await page.keyboard.press('Tab');
      await expect(link.evaluate((a) => a === document.activeElement)).resolves.toBe(true);
      if (size === DESKTOP) expect(await background(row.locator('td').nth(1))).not.toBe(before);
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.pathname === `/tickets/${ticketId}`);
      await page.getByRole('heading', { level: 1, name: /Printer on fire/ }).waitFor();
    }
  });

  it('lets a person click through pages faster than a key may call: over 120 requests in a minute, none refused', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    // A fresh session: its budget starts at none spent.
    await renewSession(browser, app.url, holder);
    const answers: { at: number; status: number; limit: string | null }[] = [];
    const onResponse = (r: { url(): string; status(): number; headers(): Record<string, string> }) => {
      if (new URL(r.url()).pathname === '/graphql')
        answers.push({ at: Date.now(), status: r.status(), limit: r.headers()['x-ratelimit-limit'] ?? null });
    };
    page.on('response', onResponse);
    const start = Date.now();
    try {
      for (let round = 0; round < 20 && answers.length <= 130; round++)
        for (const [link, , heading] of LINKS) {
          await nav(page).getByRole('link', { name: link, exact: true }).click();
          await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        }
    } finally {
      page.off('response', onResponse);
    }
    const inAMinute = answers.filter((a) => a.at - start < 60_000);
    expect(inAMinute.length).toBeGreaterThan(120);
    expect(answers.filter((a) => a.status === 429)).toEqual([]);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set(['600']));
    await expect(page.getByText(/rate limit/i).count()).resolves.toBe(0);
  }, 90_000);

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
