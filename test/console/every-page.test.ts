import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
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
  signInLive,
  type Browser,
} from '../helpers/browser.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import type { Holder } from '../helpers/oauth.ts';
import { buy } from '../helpers/pools.ts';

/** Pages of one kind: the same path once its ids (anything with a digit) are set aside. */
const kindOf = (p: string) => p.replace(/\/[^/]*\d[^/]*/g, '/:id');

/**
 * Every page of the console, found as a person finds it (the navigation, then every link of each
 * page, one page of each kind), with an account that has something in every area: at 390 px none
 * scrolls sideways, and at both sizes axe-core finds nothing serious.
 */
describe.skipIf(!hasChromium)('every console page at 390 and 1280 px', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    let serverId: string;
    ({ app, holder, serverId } = await dashboardWithServer());
    const key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        name: 'a key with a rather long name for a narrow screen',
        scopes: [
          'servers:read',
          'servers:write',
          ...MANAGE,
          'mail:read',
          'mail:write',
          'tickets:write',
          'webhooks:write',
        ],
      })
    ).body.key as string;
    const ok = async (what: string, r: Promise<{ status: number; text: string; body: { id: string } }>) => {
      const res = await r;
      expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    const customer = { accountId: holder.accountId, key, keyId: '' };
    const pool = await buy(app, customer);
    await ok(
      'pool server',
      app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key,
        body: { productId: 'std-1c-2g-50', label: 'node-with-a-long-name-1', osTemplate: 'debian-12' },
      }),
    );
    const hostingId = await activeHosting(app, customer);
    await ok(
      'database',
      app.call('POST', `/v1/hosting/${hostingId}/databases`, { key, body: { suffix: 'shop_orders' } }),
    );
    await ok('backup', app.call('POST', `/v1/hosting/${hostingId}/backups`, { key }));
    await ok(
      'cron',
      app.call('PUT', `/v1/hosting/${hostingId}/cron`, {
        key,
        body: { jobs: [{ schedule: '*/15 * * * *', command: 'php ~/public_html/a/rather/long/path/to/queue.php' }] },
      }),
    );
    const domain = `every-${randomBytes(3).toString('hex')}.com`;
    await ok(
      'domain',
      app.admin('POST', `/admin/accounts/${holder.accountId}/domains`, { domain, periodYears: 1, charge: true }),
    );
    const mail = await ok('mail domain', app.call('POST', '/v1/mail/domains', { key, body: { domain } }));
    await ok(
      'mailbox',
      app.call('POST', '/v1/mail/mailboxes', {
        key,
        body: { domain_id: mail.id, local_part: 'info', password: 'a long mailbox password', quota_mb: 1024 },
      }),
    );
    await ok(
      'ticket',
      app.call('POST', '/v1/tickets', {
        key,
        body: { subject: 'A question', message: 'About the bill.', department: 'billing', priority: 'low' },
      }),
    );
    await ok(
      'invoice',
      app.admin('POST', `/admin/accounts/${holder.accountId}/invoices`, {
        items: [{ description: 'Consulting', amountUsdCents: 1234 }],
      }),
    );
    await ok(
      'webhook',
      app.call('POST', '/v1/webhooks', {
        key,
        body: { url: 'http://127.0.0.1:9/hooks/a-rather-long-path/for-a-narrow-screen', events: ['*'] },
      }),
    );
    await ok(
      'snapshot',
      app.call('POST', `/v1/servers/${serverId}/snapshots`, { key, body: { name: 'before-upgrade' } }),
    );
    await app.runDueWork();
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  /** Same-origin links of the navigation and the page, as paths. */
  const linksOn = (page: Page) =>
    page
      .locator('nav a[href], main a[href]')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))
      .then((hrefs) => hrefs.filter((h) => h.startsWith(app.url)).map((h) => new URL(h).pathname));

  it('fits every page into 390 px without sideways scroll; axe clean at 390 and 1280 px', async () => {
    const { page } = browser;
    const queue = ['/'];
    const seen = new Set(['/', '/sign-in', '/oauth/device']);
    const visited: string[] = [];
    const wide: string[] = [];
    const violations: string[] = [];
    let loads = 0;
    while (queue.length > 0) {
      const at = queue.shift() as string;
      // Loading page after page in seconds is far more than a person does: a new session now and then.
      if (++loads % 20 === 0) await renewSession(browser, app.url, holder);
      await page.setViewportSize(PHONE);
      await page.goto(`${app.url}${at}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      await page
        .getByText(/^Loading…$/)
        .first()
        .waitFor({ state: 'detached' });
      const width = await pageWidth(page);
      if (width.scroll > width.window) wide.push(`${kindOf(at)} at ${PHONE.width} px: ${width.scroll} px wide`);
      // The console's layout is CSS alone, so the same page widened is the page as a desktop loads it.
      for (const size of [PHONE, DESKTOP]) {
        await page.setViewportSize(size);
        for (const v of await axeViolations(page)) violations.push(`${kindOf(at)} at ${size.width} px: ${v}`);
      }
      visited.push(kindOf(at));
      for (const next of await linksOn(page)) {
        if (seen.has(kindOf(next)) || seen.has(next)) continue;
        seen.add(kindOf(next));
        queue.push(next);
      }
    }
    // The walk reached every area's list and detail pages, the order and new-ticket forms, and every hosting tab.
    for (const kind of [
      '/servers/:id',
      '/servers/new',
      '/pools/:id',
      '/pools/new',
      '/hosting/:id',
      '/hosting/:id/databases',
      '/hosting/:id/backups',
      '/hosting/:id/stats',
      '/mail/:id',
      '/domains/:id',
      '/tickets/:id',
      '/tickets/new',
      '/settings',
    ])
      expect(visited).toContain(kind);
    expect(visited.length).toBeGreaterThanOrEqual(34);
    expect(wide).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
  }, 300_000);

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
