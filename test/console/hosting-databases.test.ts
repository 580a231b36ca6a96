import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltApp, type BuiltApp } from '../helpers/built-app.ts';
import {
  closeConsole,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  screenshot,
  signInLive,
  type Browser,
} from '../helpers/browser.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import { confirm, overflowingCards } from '../helpers/hosting-panel.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';
import { fitsAndPasses } from '../helpers/page-checks.ts';

/**
 * A hosting database's password in the console: a new database's user has none; "Set password"
 * shows one once, with Copy; "Reset password" asks first and replaces it. The account's shell
 * signs in with it. The Backups and Databases tabs, with rows, fit a 390 px phone.
 */
describe.skipIf(!hasChromium)('dashboard: hosting databases and their passwords', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let hostingId: string;
  let key: string;
  let database: string;
  const pageErrors: string[] = [];
  const tab = (slug: string) => `${app.url}/hosting/${hostingId}/${slug}`;
  const section = (page: Page) => page.getByTestId('hosting-databases');

  /** What the account's browser-SSH shell answers `line` (a session launched through the API). */
  async function shell(line: string): Promise<string> {
    const s = (await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/launch`, { key })).body;
    const res = await fetch(`${app.url}/ssh-terminal/${s.sessionId}/line`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Terminal-Token': s.token },
      body: JSON.stringify({ line, cwd: '/' }),
    });
    return ((await res.json()) as { output: string }).output;
  }

  /** The account's databases, as the API lists them. */
  const databases = async (): Promise<{ name: string; passwordSetAt: string | null }[]> =>
    (await app.call('GET', `/v1/hosting/${hostingId}/databases`, { key })).body.data;

  /** The password the notice shows once. */
  const shown = (page: Page) => page.getByTestId('database-password').locator('code').textContent();

  beforeAll(async () => {
    app = await startBuiltApp();
    holder = await accountHolder(app);
    key = (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: MANAGE })).body.key;
    hostingId = await activeHosting(app, { accountId: holder.accountId, key, keyId: '' });
    expect((await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/access`, { key })).status).toBe(200);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it("creates a database whose user has no password yet, then sets one: shown once, copied, the shell's sign-in works", async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.goto(tab('databases'));
    await section(page).getByText('No databases yet.').waitFor();
    await section(page).getByLabel('Name').fill('shop');
    await section(page).getByRole('button', { name: 'Create database' }).click();
    await section(page)
      .getByRole('status')
      .getByText(/^Created /)
      .waitFor({ timeout: 10_000 });
    database = (await databases())[0].name;
    const row = section(page).getByTestId(`database-${database}`);
    await row.getByTestId('database-password-state').getByText('not set', { exact: true }).waitFor();
    expect(await shell(`mysql -u ${database} -pguess ${database}`)).toMatch(/^ERROR 1045/);

    await row.getByRole('button', { name: 'Set password' }).click();
    const notice = page.getByTestId('database-password');
    await notice.getByText(`New password for the MySQL user ${database}`).waitFor({ timeout: 10_000 });
    const password = (await shown(page))!;
    expect(password).toMatch(/^[A-Za-z2-9]{24}$/);
    await notice.getByRole('button', { name: 'Copy' }).click();
    await notice.getByRole('status').getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(password);
    // Live: the row says when, never what.
    await row
      .getByTestId('database-password-state')
      .getByText(/^set \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)
      .waitFor();
    expect(await shell(`mysql -u ${database} -p${password} ${database}`)).toMatch(/^Welcome to the MySQL monitor/);
    await screenshot(page, 'hosting-database-password-1280');

    await notice.getByRole('button', { name: 'Done' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await row.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(): what the reader sees
    expect(await page.locator('main').innerText()).not.toContain(password);
  });

  it('resets it only after asking; the old password stops working', async () => {
    const { page } = browser;
    const row = section(page).getByTestId(`database-${database}`);
    const reset = row.getByRole('button', { name: 'Reset password' });
    await reset.click();
    const dialog = page.getByRole('dialog', { name: `Reset the password of ${database}?` });
    await dialog.getByText(/the current one stops working/).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('database-password').count()).resolves.toBe(0);

    await reset.click();
    const before = (await databases())[0].passwordSetAt;
    await confirm(page, 'Reset password');
    const password = (await page.getByTestId('database-password').locator('code').textContent())!;
    expect(password).toMatch(/^[A-Za-z2-9]{24}$/);
    expect((await databases())[0].passwordSetAt).not.toBe(before);
    expect(await shell(`mysql -u ${database} -p${password}`)).toMatch(/^Welcome/);
  });

  it('fits the Databases and Backups tabs, with their rows, into 390 px without sideways scroll; axe clean at both sizes', async () => {
    const { page } = browser;
    // A second database with a long name, and backups holding both.
    expect(
      (await app.call('POST', `/v1/hosting/${hostingId}/databases`, { key, body: { suffix: 'wordpress_blog_1' } }))
        .status,
    ).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await app.call('POST', `/v1/hosting/${hostingId}/backups`, { key })).status).toBe(200);
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(tab('databases'));
      const row = section(page).getByTestId(`database-${database}`);
      await row.waitFor();
      // The one-time password shown too: the widest the tab gets.
      await row.getByRole('button', { name: 'Reset password' }).click();
      await confirm(page, 'Reset password');
      await page.getByTestId('database-password').waitFor();
      await fitsAndPasses(page, 'databases tab');
      expect(await overflowingCards(page)).toEqual([]);
      await screenshot(page, `hosting-databases-${size.width}`);

      await page.goto(tab('backups'));
      const backups = page.getByTestId('hosting-backups');
      await backups.getByRole('button', { name: 'Download' }).first().waitFor();
      await backups.getByText(`${database}, `).first().waitFor();
      await fitsAndPasses(page, 'backups tab');
      expect(await overflowingCards(page)).toEqual([]);
      await screenshot(page, `hosting-backups-${size.width}`);
    }
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
