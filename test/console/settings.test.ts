import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, readAs } from '../helpers/built-app.ts';
import {
  browserSignIn,
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
import type { Holder } from '../helpers/oauth.ts';
import { describedText, fitsAndPasses } from '../helpers/page-checks.ts';
import { advance } from '../helpers/servers.ts';
import { SSH_KEYS } from '../helpers/ssh-keys.ts';

const NEW_PASSWORD = 'a brand new passphrase';

/** Settings in Chromium, as a person uses them: the password, the sessions, SSH keys picked at order. */
describe.skipIf(!hasChromium)('dashboard: settings', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let other: Browser | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await closeConsole(browser, app);
  });

  it('is in the header and fits a phone and a laptop, axe clean', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: 'Settings' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    for (const name of ['Profile', 'Password', 'Sessions', 'SSH keys', 'Notifications'])
      await page.getByRole('heading', { level: 2, name }).waitFor();
    await page.getByLabel('Name', { exact: true }).and(page.locator('input')).waitFor();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Holder');
    await page.getByTestId('sessions').waitFor();
    await fitsAndPasses(page, '/settings');
    await page.setViewportSize(PHONE);
    await fitsAndPasses(page, '/settings');
    await screenshot(page, 'settings-phone');
    await page.setViewportSize(DESKTOP);
  });

  it('saves the profile and the invoice e-mail; a bad value is refused beside its field', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/settings`);
    const country = page.getByLabel('Country');
    await country.fill('X');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => country.getAttribute('aria-invalid')).toBe('true');
    expect(await describedText(country)).toMatch(/Country must be an ISO 3166-1 alpha-2 code/);
    await country.fill('fr');
    await page.getByLabel('Name', { exact: true }).fill('Ada King');
    // Typed in the other form first: saving the profile re-seeds only the fields nobody touched.
    await page.getByLabel('Invoice e-mail').fill('billing@example.com');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    expect(await page.getByLabel('Invoice e-mail').inputValue()).toBe('billing@example.com');

    await page.getByRole('button', { name: 'Save invoice e-mail' }).click();
    await page.getByText('Invoices go to billing@example.com.').waitFor();
    const stored = await readAs(app, holder.accountId, '/account');
    expect(stored).toMatchObject({ name: 'Ada King', country: 'FR', invoice_email: 'billing@example.com' });
  });

  it("changes the password: a wrong current one is refused beside it; then another browser's session is signed out", async () => {
    other = await launchBrowser();
    await browserSignIn(other.page, app.url, holder.email, holder.password, '/servers');
    await other.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();

    const { page } = browser;
    // A page of its own (the one before was /settings too): the list is read afresh.
    await page.goto(`${app.url}/`);
    await page.goto(`${app.url}/settings#password`);
    await page.getByTestId('sessions').getByText('this browser').waitFor();
    await expect.poll(() => page.getByTestId('sessions').getByRole('row').count()).toBe(3);

    const current = page.getByLabel('Current password');
    await current.fill('not my password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => current.getAttribute('aria-invalid')).toBe('true');
    expect(await describedText(current)).toContain('The current password is wrong.');
    // The other browser is still signed in.
    await other.page.getByRole('link', { name: 'Billing' }).first().click();
    await other.page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();

    await current.fill(holder.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. 1 other session was signed out.').waitFor();
    holder.password = NEW_PASSWORD;
    await expect.poll(() => page.getByTestId('sessions').getByRole('row').count()).toBe(2);

    // The other browser's next request finds its session gone: the sign-in form, no reload needed.
    await other.page.getByRole('link', { name: 'Servers' }).first().click();
    await other.page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
    await other.page.reload();
    await other.page.getByRole('button', { name: 'Sign in' }).waitFor();
    // This browser goes on.
    await page.getByRole('link', { name: 'Servers' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  }, 60_000);

  it('signs another session out from the list, after a dialog named by its question', { timeout: 60_000 }, async () => {
    await browserSignIn(other!.page, app.url, holder.email, NEW_PASSWORD, '/servers');
    const { page } = browser;
    await page.goto(`${app.url}/`);
    await page.goto(`${app.url}/settings#sessions`);
    const table = page.getByTestId('sessions');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await table.getByRole('button', { name: 'Sign out' }).click();
    const dialog = page.getByRole('dialog', { name: /^Sign out Chrome \d+ on Linux\?$/ });
    await dialog.getByRole('button', { name: 'Sign it out' }).click();
    await page.getByText('The session was signed out.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await other!.page.getByRole('link', { name: 'Billing' }).first().click();
    await other!.page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
  });

  it('asks for the password when it was typed long ago, then signs every other session out', async () => {
    await browserSignIn(other!.page, app.url, holder.email, holder.password, '/servers');
    await advance(app, 11 * 60);
    const { page } = browser;
    await page.goto(`${app.url}/`);
    await page.goto(`${app.url}/settings#sessions`);
    const table = page.getByTestId('sessions');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await page.getByRole('button', { name: 'Sign out every other session' }).click();
    await page
      .getByRole('dialog', { name: 'Sign out every other session?' })
      .getByRole('button', { name: 'Sign them out' })
      .click();
    const prompt = page.getByTestId('sudo-prompt');
    await prompt.getByText(/Confirm your password: it was entered more than 10 minutes ago/).waitFor();
    await prompt.getByLabel('Password').fill(holder.password);
    await prompt.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('1 session was signed out.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await other!.page.getByRole('link', { name: 'Billing' }).first().click();
    await other!.page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
  }, 60_000);

  it('adds an SSH key (a bad one refused beside the field) and picks it when ordering a server', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/settings#ssh-keys`);
    const publicKey = page.getByLabel('Public key');
    await page.getByLabel('Key name').fill('laptop');
    await publicKey.fill(SSH_KEYS.RSA_1024.line);
    await page.getByRole('button', { name: 'Add key' }).click();
    await expect.poll(() => publicKey.getAttribute('aria-invalid')).toBe('true');
    expect(await describedText(publicKey)).toMatch(/RSA keys must have 2048 to 16384 bits/);
    await publicKey.fill(SSH_KEYS.ED25519.line);
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByText(`Key added: ${SSH_KEYS.ED25519.fingerprint}.`).waitFor();
    await page.getByTestId('ssh-keys').getByText(SSH_KEYS.ED25519.fingerprint).waitFor();
    await page.setViewportSize(PHONE);
    await fitsAndPasses(page, '/settings with an SSH key');
    await page.setViewportSize(DESKTOP);

    await page.goto(`${app.url}/servers/new`);
    await page.getByRole('radio', { name: 'Standard 2 vCPU / 4 GB / 50 GB' }).check();
    await page.getByLabel('Label', { exact: true }).fill('keyed-1');
    await page
      .getByRole('group', { name: 'SSH keys for root' })
      .getByRole('checkbox', { name: /laptop/ })
      .check();
    await fitsAndPasses(page, '/servers/new with SSH keys');
    await page.getByRole('button', { name: 'Order server' }).click();
    await page.getByRole('heading', { level: 1, name: /keyed-1/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('server-ssh-keys').getByText('laptop').waitFor();
    const servers = await readAs(app, holder.accountId, '/servers');
    const server = servers.data.find((s: { label: string }) => s.label === 'keyed-1');
    expect(server.sshKeys).toEqual([
      { id: expect.stringMatching(/^ssh_/), name: 'laptop', fingerprint: SSH_KEYS.ED25519.fingerprint },
    ]);
    await advance(app, 180);
    await page.getByTestId('server-status').getByText('running').waitFor({ timeout: 10_000 });

    // Reinstall with no key ticked: the server has none afterwards; ticked again, it has it.
    const reinstall = page.getByTestId('reinstall');
    const tick = reinstall.getByRole('checkbox', { name: /laptop/ });
    await expect(tick.isChecked()).resolves.toBe(false);
    const reinstallWith = async () => {
      await reinstall.getByRole('button', { name: 'Reinstall' }).click();
      await page
        .getByRole('dialog', { name: /^Reinstall keyed-1 with .*\?$/ })
        .getByRole('button', { name: 'Wipe and reinstall' })
        .click();
      await page.getByTestId('server-status').getByText('reinstalling').waitFor({ timeout: 10_000 });
      await advance(app, 120);
      await page.getByTestId('server-status').getByText('running').waitFor({ timeout: 10_000 });
    };
    await reinstallWith();
    await page.getByTestId('server-ssh-keys').getByText('none').waitFor();
    await tick.check();
    await reinstallWith();
    await page.getByTestId('server-ssh-keys').getByText('laptop').waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
