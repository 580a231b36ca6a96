import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  browserSignIn,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  pageWidth,
  screenshot,
  type Browser,
  DESKTOP,
  PHONE,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';
import { advance } from '../helpers/servers.ts';

/** Waits (the page updates live) until the server's status badge reads `status`. */
const statusIs = (page: Page, status: string) =>
  page.getByTestId('server-status').getByText(status, { exact: true }).waitFor({ timeout: 15_000 });

/** The label (aria-label) of a chart's image, which sums it up. */
const chartLabel = (page: Page, id: string) =>
  page.getByTestId(`chart-${id}`).getByRole('img').getAttribute('aria-label');

/** The server page as a customer uses it: usage, snapshots, reverse DNS, plan, add-ons, reinstall, terminate. */
describe.skipIf(!hasChromium)('dashboard server page in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let serverId: string;
  let key: string;
  let browser: Browser;
  const pageErrors: string[] = [];
  /** Full loads of the document: the page must update in place, never reload. */
  const loads: string[] = [];

  /** A read through the public REST API, as another client of the account would see it. */
  const rest = async (path: string) => {
    const r = await app.call('GET', `/v1${path}`, { key });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    // Two hours old before the page opens: its hour chart is full from the first load.
    await advance(app, 2 * 3600);
    key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['servers:read', 'billing:read'],
      })
    ).body.key;
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    await browserSignIn(browser.page, app.url, holder.email, holder.password, `/servers/${serverId}`);
    await browser.page.getByTestId('live-status').getByText('live').waitFor();
    await browser.page.setViewportSize(DESKTOP);
    await browser.page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
    browser.page.on('framenavigated', (f) => f === browser.page.mainFrame() && loads.push(f.url()));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('charts the last hour on first load; the last 24 hours on request, with other points and another axis', async () => {
    const { page } = browser;
    const stats = page.getByTestId('stats');
    for (const id of ['cpu', 'memory', 'network', 'disk']) {
      await page.getByTestId(`chart-${id}`).getByRole('img').waitFor();
      await expect(chartLabel(page, id)).resolves.toMatch(/ 60 samples from \d\d:\d\d to \d\d:\d\d UTC: .*latest/);
    }
    // Axes are labelled: time along x in the period's unit, the quantity with its unit along y.
    const cpuAxes = () => page.getByTestId('chart-cpu').locator('svg').textContent();
    await expect(cpuAxes()).resolves.toMatch(/^[^A-Za-z]*\d\d:\d\d.*Time \(UTC\), a point a minute.*Load/);
    await expect(cpuAxes()).resolves.toContain('100 %');
    // One point per sample and series, and a line through them.
    await expect(page.getByTestId('chart-cpu').locator('circle').count()).resolves.toBe(60);
    await expect(page.getByTestId('chart-network').locator('circle').count()).resolves.toBe(120);
    await expect(page.getByTestId('chart-network').locator('polyline').count()).resolves.toBe(2);
    // The values in a table, for whoever cannot read the chart: the server has run all hour, so
    // every minute has load (none is a zero from before it existed, as a tab's own samples would be).
    const cpu = page.getByTestId('chart-cpu');
    await cpu.getByText('Values').click();
    const cpuValues = async () =>
      (await cpu.getByRole('table').locator('tbody td.num').allTextContents()).map((t) => Number.parseFloat(t));
    const hour = await cpuValues();
    expect(hour).toHaveLength(60);
    expect(hour.every((v) => v >= 2)).toBe(true);

    // A minute later, Refresh reads the hour again: still 60 points, the window one minute on.
    const firstTime = async () => /from (\S+ ?\S*) to/.exec((await chartLabel(page, 'cpu')) ?? '')?.[1];
    const from = await firstTime();
    await advance(app, 60);
    await stats.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(firstTime, { timeout: 10_000 }).not.toBe(from);
    await expect(chartLabel(page, 'cpu')).resolves.toMatch(/^CPU load, 60 samples from /);

    // The last 24 hours: 96 points of 15 minutes, the axis in days and times; the server is two
    // hours old, so the day's first points are zero and its last ones carry load.
    await stats.getByLabel('Period').selectOption({ label: 'Last 24 hours' });
    await expect
      .poll(() => chartLabel(page, 'cpu'), { timeout: 10_000 })
      .toMatch(/^CPU load, 96 samples from \d{1,2} [A-Z][a-z]{2} \d\d:\d\d to \d{1,2} [A-Z][a-z]{2} \d\d:\d\d UTC: /);
    await expect(cpuAxes()).resolves.toContain('Time (UTC), a point per 15 minutes');
    await expect(cpuAxes()).resolves.not.toContain('a point a minute');
    await expect(page.getByTestId('chart-cpu').locator('circle').count()).resolves.toBe(96);
    await expect(page.getByTestId('chart-network').locator('circle').count()).resolves.toBe(192);
    const day = await cpuValues();
    expect(day).toHaveLength(96);
    expect(day.slice(0, 80).every((v) => v === 0)).toBe(true);
    expect(day.slice(-4).every((v) => v > 0)).toBe(true);
    await expect(stats.getByRole('status').count()).resolves.toBe(0);
    await screenshot(page, 'server-page-stats');

    // The last 7 days read by the day, then back to the hour.
    await stats.getByLabel('Period').selectOption({ label: 'Last 7 days' });
    await expect
      .poll(() => chartLabel(page, 'cpu'), { timeout: 10_000 })
      .toMatch(/^CPU load, 168 samples from [A-Z][a-z]{2} \d/);
    await expect(cpuAxes()).resolves.toContain('Day (UTC), a point an hour');
    await stats.getByLabel('Period').selectOption({ label: 'Last hour' });
    await expect.poll(() => chartLabel(page, 'cpu'), { timeout: 10_000 }).toMatch(/^CPU load, 60 samples from /);
  });

  it('takes a snapshot, reverts the disk to it and deletes it, without a reload', async () => {
    const { page } = browser;
    const section = page.getByTestId('snapshots');
    await section.getByText('No snapshots yet.').waitFor();
    // A snapshot needs a name: the API's refusal shows beside the field.
    const name = section.getByLabel('Snapshot name');
    await section.getByRole('button', { name: 'Take snapshot' }).click();
    const nameError = section.locator('#snapshot-name-error');
    await nameError.waitFor({ timeout: 10_000 });
    await expect(nameError.textContent()).resolves.toMatch(/^Name must be 1 to 64 characters\.$/);
    await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(name.getAttribute('aria-describedby')).resolves.toBe('snapshot-name-error');
    await name.fill('before-upgrade');
    await section.getByRole('button', { name: 'Take snapshot' }).click();
    const row = section.getByTestId('snapshot-before-upgrade');
    await row.getByText('available', { exact: true }).waitFor({ timeout: 10_000 });
    await expect(section.getByLabel('Snapshot name').inputValue()).resolves.toBe('');
    expect((await rest(`/servers/${serverId}/snapshots`)).data.map((s: { name: string }) => s.name)).toEqual([
      'before-upgrade',
    ]);

    // Revert asks first; Cancel does nothing.
    await row.getByRole('button', { name: 'Revert' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert web-1 to “before-upgrade”?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog.isVisible()).resolves.toBe(false);
    await statusIs(page, 'running');
    await row.getByRole('button', { name: 'Revert' }).click();
    await dialog.getByRole('button', { name: 'Revert disk' }).click();
    await statusIs(page, 'restoring');
    await section
      .getByRole('status')
      .getByText(/Restoring the disk from a snapshot/)
      .waitFor();
    // While it restores the API takes no snapshot, and the page says why (the API's own words).
    const take = section.getByRole('button', { name: 'Take snapshot' });
    await expect(take.isDisabled()).resolves.toBe(true);
    await expect(take.getAttribute('title')).resolves.toMatch(/being restored from a snapshot/);
    // So is every other action the API refuses meanwhile; terminating stays possible.
    for (const button of [
      page.getByTestId('reinstall').getByRole('button', { name: 'Reinstall' }),
      page.getByTestId('addon-addon-ipv4-1').getByRole('button', { name: 'Attach' }),
      row.getByRole('button', { name: 'Revert' }),
    ]) {
      await expect(button.isDisabled()).resolves.toBe(true);
      await expect(button.getAttribute('title')).resolves.toMatch(/being restored from a snapshot/);
    }
    await expect(page.getByRole('button', { name: 'Terminate server' }).isDisabled()).resolves.toBe(false);
    await screenshot(page, 'server-page-restoring');
    // The restore finishes upstream (no event for that): the page sees it by itself.
    await advance(app, 120);
    await statusIs(page, 'running');
    await expect(take.isDisabled()).resolves.toBe(false);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete snapshot “before-upgrade”?' })
      .getByRole('button', { name: 'Delete snapshot' })
      .click();
    await section.getByText('No snapshots yet.').waitFor({ timeout: 10_000 });
    expect((await rest(`/servers/${serverId}/snapshots`)).data).toEqual([]);
    expect(loads).toEqual([]);
  });

  it('shows a snapshot taken and deleted through the public API while the page is open, without a reload', async () => {
    const { page } = browser;
    const section = page.getByTestId('snapshots');
    await section.getByText('No snapshots yet.').waitFor();
    const writer = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['servers:write'] })
    ).body.key;
    const taken = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: writer,
      body: { name: 'from-the-api' },
    });
    expect(taken.status, taken.text).toBe(200);
    // Well inside the page's 30-second usage poll: the server.snapshot.created event brings it.
    await section
      .getByTestId('snapshot-from-the-api')
      .getByText('available', { exact: true })
      .waitFor({ timeout: 4_000 });
    const gone = await app.call('DELETE', `/v1/servers/${serverId}/snapshots/${taken.body.id}`, { key: writer });
    expect(gone.status, gone.text).toBe(200);
    await section.getByText('No snapshots yet.').waitFor({ timeout: 4_000 });
    expect(loads).toEqual([]);
  });

  it('sets the PTR of the primary address and clears it; a bad name is refused beside the field, nothing changed', async () => {
    const { page } = browser;
    const ips = async () => (await rest(`/servers/${serverId}/ips`)).data as { ip: string; ptr: string | null }[];
    const primary = (await ips())[0];
    const row = page.getByTestId(`ip-${primary.ip}`);
    const input = row.getByLabel(`Reverse DNS of ${primary.ip}`);
    await input.fill('mail.example.com');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByRole('status').getByText('Saved.').waitFor({ timeout: 10_000 });
    expect((await ips())[0]).toMatchObject({ ip: primary.ip, ptr: 'mail.example.com' });

    await input.fill('not a host name!');
    await row.getByRole('button', { name: 'Save' }).click();
    const error = row.locator('.field-error');
    await error.waitFor({ timeout: 10_000 });
    await expect(error.textContent()).resolves.toMatch(/^Reverse DNS name must be a host name such as/);
    await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(input.getAttribute('aria-describedby')).resolves.toBe(await error.getAttribute('id'));
    expect((await ips())[0].ptr).toBe('mail.example.com');
    await screenshot(page, 'server-page-ptr-refused');

    await row.getByRole('button', { name: 'Clear' }).click();
    await row.getByRole('status').getByText('Cleared.').waitFor({ timeout: 10_000 });
    await expect(input.inputValue()).resolves.toBe('');
    await expect(input.getAttribute('aria-invalid')).resolves.toBeNull();
    expect((await ips())[0].ptr).toBeNull();
  });

  it('shows the plan options with their prices and changes the plan after showing the difference', async () => {
    const { page } = browser;
    const plan = page.getByTestId('plan');
    const current = plan.getByRole('radio', { name: /\(current\)/ });
    await current.waitFor();
    await expect(current.isChecked()).resolves.toBe(true);
    await expect(plan.getByRole('radio').count()).resolves.toBe(3);
    const labels = await plan.locator('label.plan-card').allTextContents();
    expect(labels.map((l) => /\$[\d.,]+ per month/.exec(l)?.[0])).toEqual([
      '$6.00 per month',
      '$12.00 per month',
      '$24.00 per month',
    ]);
    // Nothing to change while the current plan is chosen.
    await expect(plan.getByRole('button', { name: 'Change plan' }).isDisabled()).resolves.toBe(true);
    await plan.getByRole('radio', { name: /\$24\.00 per month/ }).check();
    await plan.getByRole('button', { name: 'Change plan' }).click();
    const dialog = page.getByRole('dialog', { name: /^Change web-1 to / });
    await expect(dialog.getByTestId('plan-difference').textContent()).resolves.toMatch(
      /\$12\.00 → \$24\.00 per month: \+\$12\.00 a month.*Nothing is charged now/,
    );
    await dialog.getByRole('button', { name: 'Change plan' }).click();
    await page
      .getByTestId('server-plan')
      .getByText(/^std-4c-8g-50/)
      .waitFor({ timeout: 10_000 });
    expect((await rest(`/servers/${serverId}`)).productId).toBe('std-4c-8g-50');
    await advance(app, 120);
    await statusIs(page, 'running');
    await expect(plan.getByRole('radio', { name: /\(current\)/ }).getAttribute('value')).resolves.toBe('std-4c-8g-50');
  });

  it('attaches an add-on: the prorated charge shown first, then debited from the wallet; detaches it', async () => {
    const { page } = browser;
    const txns = async () => (await rest('/billing/wallet/transactions')).data as unknown[];
    const before = (await txns()).length;
    const row = page.getByTestId('addon-addon-ipv4-1');
    await row.getByRole('button', { name: 'Attach' }).click();
    const dialog = page.getByRole('dialog', { name: 'Attach 1 extra IPv4 address to web-1?' });
    const price = await dialog.getByTestId('attach-price').textContent();
    const charge = /(\$\d+\.\d\d) charged from your wallet now/.exec(price ?? '')?.[1];
    expect(charge, price ?? '').toBeDefined();
    expect(price).toContain('then $3.00 a month');
    // Shown, not yet charged.
    expect((await txns()).length).toBe(before);
    await dialog.getByRole('button', { name: `Pay ${charge} and attach` }).click();
    const section = page.getByTestId('addons');
    await section.getByRole('status').getByText(`1 extra IPv4 address attached: ${charge} charged`).waitFor({
      timeout: 10_000,
    });
    await row.getByText('attached', { exact: true }).waitFor();
    expect((await txns()).length).toBe(before + 1);

    // Detach asks first, and says nothing is refunded.
    await row.getByRole('button', { name: 'Detach' }).click();
    const detach = page.getByRole('dialog', { name: 'Detach 1 extra IPv4 address from web-1?' });
    await expect(detach.textContent()).resolves.toMatch(/Nothing is refunded/);
    await detach.getByRole('button', { name: 'Detach' }).click();
    await row.getByText('offered', { exact: true }).waitFor({ timeout: 10_000 });

    // The charge is the newest line of the wallet's ledger.
    await page.getByRole('navigation').getByRole('link', { name: 'Billing' }).click();
    const newest = page.getByTestId('transaction').first();
    await newest.getByText('addon purchase').waitFor({ timeout: 10_000 });
    await expect(newest.textContent()).resolves.toContain(`−${charge}`);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
  });

  it('reinstalls with another system after a warning; the page follows it to running', async () => {
    const { page } = browser;
    const section = page.getByTestId('reinstall');
    await section.getByLabel('Operating system').selectOption({ label: 'Debian 12' });
    await section.getByRole('button', { name: 'Reinstall' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reinstall web-1 with Debian 12?' });
    await expect(dialog.textContent()).resolves.toMatch(/The disk is wiped/);
    await dialog.getByRole('button', { name: 'Wipe and reinstall' }).click();
    await statusIs(page, 'reinstalling');
    await section
      .getByRole('status')
      .getByText(/Reinstalling…/)
      .waitFor();
    await expect(section.getByRole('button', { name: 'Reinstall' }).isDisabled()).resolves.toBe(true);
    await advance(app, 120);
    await statusIs(page, 'running');
    await page.getByTestId('server-system').getByText('linux / debian-12').waitFor();
  });

  it('fits a phone screen without sideways scrolling; axe-core finds nothing serious at either size', async () => {
    const { page } = browser;
    const violations: string[] = [];
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(`${app.url}/servers/${serverId}`);
      await page.getByTestId('chart-disk').getByRole('img').waitFor();
      await page.getByTestId('addon-addon-ipv4-1').waitFor();
      await page.getByTestId('plan').getByRole('radio').first().waitFor();
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      if (size === PHONE) {
        const width = await pageWidth(page);
        expect(width.scroll).toBeLessThanOrEqual(width.window);
        await screenshot(page, 'server-page-phone');
      }
      for (const v of await axeViolations(page)) violations.push(`${size.width} px: ${v}`);
    }
    expect(violations, violations.join('\n')).toEqual([]);
  }, 60_000);

  it("offers nothing a session from a read-only key's SSO link cannot do, saying the scope it lacks", async () => {
    const { page } = browser;
    const link = await app.call('POST', `/v1/servers/${serverId}/sso`, { key });
    expect(link.status, link.text).toBe(200);
    await page.goto(link.body.url);
    await page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
    const buttons: [ReturnType<Page['getByRole']>, string][] = [
      [page.getByRole('button', { name: 'Take snapshot' }), 'servers:write'],
      [page.getByTestId('addon-addon-ipv4-1').getByRole('button', { name: 'Attach' }), 'servers:write'],
      [page.getByTestId('reinstall').getByRole('button', { name: 'Reinstall' }), 'servers:destroy'],
      [page.getByRole('button', { name: 'Terminate server' }), 'servers:destroy'],
      [page.getByTestId('addresses').getByRole('button', { name: 'Save' }), 'servers:write'],
      [page.getByRole('button', { name: 'Stop', exact: true }), 'servers:write'],
    ];
    for (const [button, scope] of buttons) {
      await expect(button.isDisabled()).resolves.toBe(true);
      await expect(button.getAttribute('title')).resolves.toBe(`This credential lacks the scope "${scope}".`);
    }
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'server-page-read-only');

    // Signed in with the password instead, everything is offered.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await browserSignIn(page, app.url, holder.email, holder.password, `/servers/${serverId}`);
    await page.getByRole('heading', { level: 1, name: /web-1/ }).waitFor();
    for (const [button] of buttons) await expect(button.isDisabled()).resolves.toBe(false);
  });

  it('terminates only once the label is typed, then leaves for the server list', async () => {
    const { page } = browser;
    await page.getByTestId('terminate').getByRole('button', { name: 'Terminate server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Terminate web-1?' });
    const confirm = dialog.getByRole('button', { name: 'Terminate web-1' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    const field = dialog.getByLabel('Type web-1 to confirm');
    await field.fill('web-');
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await field.fill('web-1 ');
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await field.fill('web-1');
    await expect(confirm.isDisabled()).resolves.toBe(false);
    await axeViolations(page).then((v) => expect(v).toEqual([]));
    await confirm.click();
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe('/servers');
    const gone = await app.call('GET', `/v1/servers/${serverId}`, { key });
    expect(gone.status).toBe(404);
  });

  it('threw no error on the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
