import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAs, type BuiltApp } from '../helpers/built-app.ts';
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
import { describedText, fitsAndPasses } from '../helpers/page-checks.ts';

/** The API's own names for the values of these forms: none may reach a person. */
const API_NAMES = /amountUsdCents|\bsuffix\b|repoUrl|repo_url|\bhostname\b|\burl is\b|\blabel must\b|cents from/;

/**
 * Refusals in a person's words (src/dashboard/error-text.ts): each form the issue named refuses a
 * bad value beside its field with the form's label and dollars, never the API's parameter names or
 * cents, at 1280 and 390 px, axe clean with the error shown. The API's own message is unchanged.
 */
describe.skipIf(!hasChromium)('dashboard refusals in a person’s words', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let hostingId: string;
  let primaryIp: string;
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    hostingId = await activeHosting(app, { accountId: holder.accountId, key: '', keyId: '' });
    primaryIp = (await readAs(app, holder.accountId, `/servers/${serverId}/ips`)).data[0].ip;
    browser = await launchBrowser();
    browser.page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  /** Submits `value` in `field`, then reads the error the field points at (its aria-describedby). */
  async function refused(field: Locator, value: string, submit: Locator): Promise<string> {
    await field.fill(value);
    await submit.click();
    await expect.poll(() => field.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    const said = await describedText(field);
    expect(said).not.toMatch(API_NAMES);
    return said;
  }

  /** Each form: where it is, then what it says when refused. */
  const forms: [string, string, (page: Page) => Promise<string>, RegExp][] = [
    [
      'top-up amount',
      '/billing',
      (page) => {
        const form = page.getByTestId('top-up');
        return refused(form.getByLabel('Amount (USD)'), '1', form.getByRole('button', { name: 'Top up' }));
      },
      /Amount must be between \$5\.00 and \$10,000\.00\./,
    ],
    [
      'database name (suffix)',
      '/hosting/:hosting/databases',
      (page) => {
        const section = page.getByTestId('hosting-databases');
        return refused(
          section.getByLabel('Name'),
          'Bad-Name',
          section.getByRole('button', { name: 'Create database' }),
        );
      },
      /^Database name must be 1 to 16 characters of lowercase letters, digits and underscores\.$/,
    ],
    [
      'repository (repoUrl)',
      '/hosting/:hosting/git',
      (page) => {
        const form = page.getByTestId('git-deploy');
        return refused(
          form.getByLabel('Repository URL'),
          'https://github.com/owner/site.git',
          form.getByRole('button', { name: 'Deploy' }),
        );
      },
      /^Repository URL must be an SSH repository address such as git@github\.com:owner\/repo\.git/,
    ],
    [
      'reverse DNS name (hostname)',
      '/servers/:server',
      (page) => {
        const row = page.getByTestId(`ip-${primaryIp}`);
        return refused(
          row.getByLabel(`Reverse DNS of ${primaryIp}`),
          'not a host name!',
          row.getByRole('button', { name: 'Save' }),
        );
      },
      /Reverse DNS name must be a host name such as "ns1\.example\.net"/,
    ],
    [
      'webhook endpoint (url)',
      '/webhooks',
      (page) => {
        const form = page.getByTestId('webhook-new');
        return refused(form.getByLabel('Endpoint URL'), ' ', form.getByRole('button', { name: 'Add subscription' }));
      },
      /^Endpoint URL is required\.$/,
    ],
    [
      'server label',
      '/servers/new',
      async (page) => {
        await page.getByRole('radio', { name: 'Standard 2 vCPU / 4 GB / 50 GB' }).check();
        return refused(
          page.getByLabel('Label', { exact: true }),
          'bad label with spaces!!',
          page.getByRole('button', { name: 'Order server' }),
        );
      },
      /Label must be letters, digits, dots, hyphens and underscores, with no dot or hyphen at either end \(such as "web-1"\)\./,
    ],
  ];

  for (const size of [DESKTOP, PHONE])
    for (const [what, path, refuse, said] of forms)
      it(`${what}: refused beside the field in a person's words, at ${size.width} px, axe clean`, async () => {
        const { page } = browser;
        await page.setViewportSize(size);
        await page.goto(`${app.url}${path.replace(':hosting', hostingId).replace(':server', serverId)}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        expect(await refuse(page)).toMatch(said);
        await fitsAndPasses(page, `${what} refused`);
        await screenshot(page, `error-text-${what.split(' ')[0]}-${size.width}`);
      });

  it("leaves the API's own message as it was", async () => {
    const key = (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['billing:write'] }))
      .body.key;
    const res = await app.call('POST', '/v1/billing/wallet/deposits', {
      key,
      body: { amount_usd_cents: 100, gateway: 'card' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: 'amount_usd_cents must be an integer number of cents from 500 to 1000000.',
      param: 'amount_usd_cents',
    });
  });

  it("threw nothing; the browser's console shows only the refused requests' statuses (kept on purpose)", () => {
    expect(pageErrors).toEqual([]);
    // Chromium's network log of a 4xx answer; docs/REFERENCE.md (Dashboard) says why refusals keep their status.
    for (const line of consoleErrors)
      expect(line).toMatch(/^Failed to load resource: the server responded with a status of 4\d\d/);
  });
});
