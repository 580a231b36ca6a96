import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltApp, type BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  pageWidth,
  screenshot,
  type Browser,
  signInLive,
  closeConsole,
} from '../helpers/browser.ts';
import { proveDomain } from '../helpers/domains.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting, domainName } from '../helpers/hosting.ts';
import { clickTab, overflowingCards, statusSays } from '../helpers/hosting-panel.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';

/**
 * The hosting panel's Certificate tab, whose retry shows only after a failed issuance: a custom
 * domain attached, then its DNS moved away, fails the next issuance; and its Statistics tab.
 * Also: a change made through the API shows on the open tab without a reload. (A file of their
 * own: the panel's other tabs fill hosting-panel.test.ts.)
 */
describe.skipIf(!hasChromium)('hosting certificate tab in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let hostingId: string;
  let custom: string;
  let ip: string;
  let key: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    app = await startBuiltApp();
    holder = await accountHolder(app);
    hostingId = await activeHosting(app, { accountId: holder.accountId, key: '', keyId: '' });
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['hosting:read', 'hosting:write', 'hosting:manage'],
    });
    expect(minted.status, minted.text).toBe(201);
    key = minted.body.key;
    const call = async (query: string) => {
      const r = await gql(app, query, { key, variables: { id: hostingId, domain: custom } });
      expect(r.body.errors, r.text).toBeUndefined();
      return r.body.data;
    };
    // A custom domain pointing here is attached and covered; then its DNS moves away and a retry fails.
    custom = domainName('www');
    await proveDomain(app, holder.accountId, custom);
    ip = (await call('query($id: ID!) { hostingAccount(id: $id) { ip } }')).hostingAccount.ip;
    await call('mutation($id: ID!, $domain: String!) { hostingCustomDomainSet(id: $id, domain: $domain) { id } }');
    expect((await app.admin('PUT', `/admin/dns/${custom}`, { target: ip })).status).toBe(200);
    await call('mutation($id: ID!) { hostingCustomDomainVerify(id: $id) { id } }');
    // 203.0.113.9 (documentation range) is only a record in the simulated DNS: nothing connects to it.
    expect((await app.admin('PUT', `/admin/dns/${custom}`, { target: '203.0.113.9' })).status).toBe(200);
    const failed = await call('mutation($id: ID!) { hostingCertRetry(id: $id) { status } }');
    expect(failed.hostingCertRetry.status).toBe('failed');

    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it('shows the failed certificate with its reason, fitting a phone, with no serious axe violation', async () => {
    const { page } = browser;
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(`${app.url}/hosting/${hostingId}/certificate`);
      const section = page.getByTestId('hosting-certificate');
      await section.getByTestId('cert-status').getByText('failed').waitFor();
      // The refusal names the simulated record's address; nothing connects to it.
      await expect(section.getByTestId('cert-error').textContent()).resolves.toContain(
        `${custom} points to 203.0.113.9`,
      );
      await section.getByRole('button', { name: 'Retry issuance' }).waitFor();
      const width = await pageWidth(page);
      expect(width.scroll, `at ${size.width} px`).toBeLessThanOrEqual(width.window);
      expect(await overflowingCards(page), `at ${size.width} px`).toEqual([]);
      expect(await axeViolations(page), `at ${size.width} px`).toEqual([]);
    }
    await screenshot(page, 'hosting-certificate-failed');
  });

  it('retries once the DNS points here again: issued for both names, and the retry is gone', async () => {
    const { page } = browser;
    const section = page.getByTestId('hosting-certificate');
    expect((await app.admin('PUT', `/admin/dns/${custom}`, { target: ip })).status).toBe(200);
    await section.getByRole('button', { name: 'Retry issuance' }).click();
    await statusSays(section, 'Certificate issued.');
    await section.getByTestId('cert-status').getByText('issued').waitFor();
    await expect(section.textContent()).resolves.toContain(custom);
    await expect(section.getByTestId('cert-error').count()).resolves.toBe(0);
    await expect(section.getByRole('button', { name: 'Retry issuance' }).count()).resolves.toBe(0);
  });

  it('draws the quotas and the visitors of each period as bars', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/hosting/${hostingId}/stats`);
    const section = page.getByTestId('hosting-stats');
    const read = await gql(app, 'query($id: ID!) { hostingStats(id: $id) { databases { used quota } } }', {
      key,
      variables: { id: hostingId },
    });
    const { hostingStats } = read.body.data;
    await section
      .getByRole('img', { name: `Databases: ${hostingStats.databases.used} of ${hostingStats.databases.quota}` })
      .waitFor();
    await expect(section.getByTestId('usage-disk').textContent()).resolves.toMatch(/ of 10 GB$/);
    const bars = section.getByTestId('visitor-series').locator('rect');
    await expect(bars.count()).resolves.toBe(24);
    // Each bar is drawn as tall as its figure and inside the chart: no page's stylesheet resizes
    // it (a box past the chart's edge would also lie under the table below it for axe-core).
    const outside = await section.getByTestId('visitor-series').evaluate((svg) => {
      const chart = svg.getBoundingClientRect();
      const unit = chart.height / 100;
      return [...svg.querySelectorAll('rect')].flatMap((bar, i) => {
        const box = bar.getBoundingClientRect();
        const drawn = Math.abs(box.height - Number(bar.getAttribute('height')) * unit) < 0.5;
        const inside = box.top >= chart.top - 0.5 && box.bottom <= chart.bottom + 0.5;
        return drawn && inside ? [] : [`bar ${i}: ${box.top}–${box.bottom} in ${chart.top}–${chart.bottom}`];
      });
    });
    expect(outside).toEqual([]);
    await section.getByRole('cell', { name: '/', exact: true }).waitFor();
    await section.getByLabel('Period').selectOption('7d');
    await section.getByRole('img', { name: /^Page views per day: 7 bars/ }).waitFor({ timeout: 10_000 });
    await expect(bars.count()).resolves.toBe(7);
  });

  it('shows a cron line and a database created through the API on the open tab, without a reload', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/hosting/${hostingId}/cron`);
    const cron = page.getByTestId('hosting-cron');
    await cron.getByText('No cron jobs yet.').waitFor();
    // A mark on the document: a reload would drop it (moving between tabs is in-page navigation).
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    const jobs = [{ schedule: '@hourly', command: 'php ~/public_html/queue.php' }];
    const set = await app.call('PUT', `/v1/hosting/${hostingId}/cron`, { key, body: { jobs } });
    expect(set.status, set.text).toBe(200);
    // The tab does not poll: only the hosting.panel.changed event brings the line.
    await cron.getByTestId('cron-job').waitFor({ timeout: 5_000 });
    await expect(cron.getByTestId('cron-job').textContent()).resolves.toContain('php ~/public_html/queue.php');

    await clickTab(page, 'Databases');
    const databases = page.getByTestId('hosting-databases');
    await databases.getByText('No databases yet.').waitFor();
    const made = await app.call('POST', `/v1/hosting/${hostingId}/databases`, { key, body: { suffix: 'live' } });
    expect(made.status, made.text).toBe(200);
    await databases.getByTestId(`database-${made.body.name}`).waitFor({ timeout: 5_000 });
    await expect(page.evaluate(() => 'notReloaded' in window)).resolves.toBe(true);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
