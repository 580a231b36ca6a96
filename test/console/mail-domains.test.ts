import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownershipTxt } from '../../src/modules/domains/ownership.ts';
import { readAs, type BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  dashboardWithServer,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  screenshot,
  type Browser,
  closeConsole,
} from '../helpers/browser.ts';
import { proveDomain } from '../helpers/domains.ts';
import type { Holder } from '../helpers/oauth.ts';
import { describedText, fitsAndPasses } from '../helpers/page-checks.ts';

const tag = randomBytes(3).toString('hex');
/** Registered in the account (paid from the wallet), so mail is enabled for it at once. */
const REGISTERED = `shop-${tag}.com`;
/** Ordered but its invoice left open: pending_payment, its settings not changeable yet. */
const UNPAID = `later-${tag}.com`;
/** Not registered anywhere: mail for it needs the ownership TXT record first. */
const FOREIGN = `elsewhere-${tag}.net`;

/** Mail and domains in Chromium, as a customer uses them: by labels, roles and visible text. */
describe.skipIf(!hasChromium)('dashboard: mail and domains', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  const pageErrors: string[] = [];
  const pages: string[] = [];
  /** Reads through the public API, as another client of the account would. */
  const read = (p: string) => readAs(app, holder.accountId, p);
  const mailboxes = async () => (await read('/mail/mailboxes')).data.length;
  const mailDomains = async (): Promise<{ id: string; domain: string }[]> => (await read('/mail/domains')).data;
  const aliases = async () => {
    let n = 0;
    for (const d of await mailDomains()) n += (await read(`/mail/domains/${d.id}/aliases`)).data.length;
    return n;
  };
  const domain = async (name: string) =>
    (await read('/domains')).data.find((d: { domain: string }) => d.domain === name) ??
    Promise.reject(new Error(`${name}: not listed`));

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    for (const [domain, charge] of [
      [REGISTERED, true],
      [UNPAID, false],
    ] as const) {
      const r = await app.admin('POST', `/admin/accounts/${holder.accountId}/domains`, {
        domain,
        periodYears: 1,
        charge,
      });
      expect(r.status, r.text).toBe(201);
    }
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await browserSignIn(browser.page, app.url, holder.email, holder.password);
  });
  afterAll(() => closeConsole(browser, app));

  it('enables mail on a registered domain and shows the DNS records to publish', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('navigation').getByRole('link', { name: 'Mail', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Mail' }).waitFor();
    await page.getByTestId('mail-domains').getByText('No mail domains yet').waitFor();
    await fitsAndPasses(page, '/mail, empty');
    pages.push('/mail');

    const form = page.getByTestId('enable-mail');
    await form.getByLabel('Domain').fill(REGISTERED);
    await form.getByRole('button', { name: 'Enable mail' }).click();
    await page.getByRole('heading', { level: 1, name: REGISTERED }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/mail\/\d+$/);
    pages.push(new URL(page.url()).pathname);

    const records = page.getByTestId('dns-record');
    await records.first().waitFor();
    await expect(records.count()).resolves.toBe(11);
    const mx = records.filter({ has: page.getByRole('cell', { name: 'MX', exact: true }) });
    await expect(mx.textContent()).resolves.toContain(`mail.${REGISTERED}`);
    await expect(mx.getByRole('cell', { name: '10', exact: true }).count()).resolves.toBe(1);
    const dkim = records.filter({ hasText: `._domainkey.${REGISTERED}` });
    await expect(dkim.textContent()).resolves.toContain('v=DKIM1; k=rsa; p=');
    await expect(records.filter({ hasText: 'v=spf1 mx' }).count()).resolves.toBe(1);
    await expect(records.filter({ hasText: `_dmarc.${REGISTERED}` }).count()).resolves.toBe(1);
    await page.getByTestId('mailboxes').getByText('No mailboxes yet.').waitFor();
    await page.getByTestId('aliases').getByText('No aliases yet.').waitFor();
    await fitsAndPasses(page, 'mail domain page');
    await screenshot(page, 'mail-domain');
  });

  it('refuses a bad mailbox beside its field and creates nothing, then adds a mailbox', async () => {
    const { page } = browser;
    const form = page.getByTestId('new-mailbox');
    const name = form.getByLabel('Mailbox name');
    await name.fill('bad..name');
    await form.getByLabel('Password').fill('a long enough password');
    await form.getByRole('button', { name: 'Create mailbox' }).click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await expect(describedText(name)).resolves.toMatch(/1 to 64 characters/);
    await expect(form.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(mailboxes()).resolves.toBe(0);
    await page.getByTestId('mailboxes').getByText('No mailboxes yet.').waitFor();
    await fitsAndPasses(page, 'mailbox refused');

    await name.fill('info');
    await form.getByLabel('Quota (MB)').fill('2048');
    await form.getByRole('button', { name: 'Create mailbox' }).click();
    const row = page.getByTestId(`mailbox-info@${REGISTERED}`);
    await row.getByText('0 / 2048 MB').waitFor({ timeout: 10_000 });
    await page.getByTestId('mailboxes').getByRole('status').getByText(`Created info@${REGISTERED}.`).waitFor();
    await expect(name.getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(name.inputValue()).resolves.toBe('');
    await page.getByTestId('mailbox-count').getByText('1', { exact: true }).waitFor();
    await expect(mailboxes()).resolves.toBe(1);
  });

  it("sets a mailbox's password in a dialog, a short one refused beside the field", async () => {
    const { page } = browser;
    const [before] = (await read('/mail/mailboxes')).data;
    await page.getByTestId(`mailbox-info@${REGISTERED}`).getByRole('button', { name: 'Set password' }).click();
    const dialog = page.getByRole('dialog', { name: `Set the password of info@${REGISTERED}` });
    const field = dialog.getByLabel('New password');
    await field.fill('short');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await expect(describedText(field)).resolves.toMatch(/Password must be 10 to 128 characters\./);
    await fitsAndPasses(page, 'password dialog, refused');
    await field.fill('another long password');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText(`New password set for info@${REGISTERED}.`).waitFor();
    const after = (await read('/mail/mailboxes')).data.find((m: { id: number }) => m.id === before.id);
    expect(after.password_changed_at).not.toBe(before.password_changed_at);
  });

  it('adds an alias, then deletes it after confirming', async () => {
    const { page } = browser;
    const form = page.getByTestId('new-alias');
    await form.getByLabel('Alias name').fill('sales');
    await form.getByLabel('Forward to').fill('owner@example.net');
    await form.getByRole('button', { name: 'Create alias' }).click();
    const row = page.getByTestId(`alias-sales@${REGISTERED}`);
    await row.getByRole('cell', { name: 'owner@example.net' }).waitFor({ timeout: 10_000 });
    await expect(aliases()).resolves.toBe(1);
    await page.getByTestId('alias-count').getByText('1', { exact: true }).waitFor();

    // Cancel leaves it; confirming deletes it.
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(aliases()).resolves.toBe(1);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete alias' }).click();
    await page.getByTestId('aliases').getByText('No aliases yet.').waitFor({ timeout: 10_000 });
    await expect(aliases()).resolves.toBe(0);
    await expect(mailboxes()).resolves.toBe(1);
  });

  it('names the TXT record a domain outside the account needs, copyable; once published, mail is enabled', async () => {
    const { page } = browser;
    await page.goto(`${app.url}/mail`);
    const form = page.getByTestId('enable-mail');
    await form.getByLabel('Domain').fill(FOREIGN);
    await form.getByRole('button', { name: 'Enable mail' }).click();
    const proof = page.getByTestId('txt-proof');
    await proof.waitFor({ timeout: 10_000 });
    const txt = ownershipTxt(holder.accountId, FOREIGN);
    await proof.getByText(txt, { exact: true }).waitFor();
    await proof.getByText(FOREIGN, { exact: true }).waitFor();
    await expect(form.getByLabel('Domain').getAttribute('aria-invalid')).resolves.toBe('true');
    await proof.getByRole('button', { name: 'Copy record value' }).click();
    await proof.getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(txt);
    await fitsAndPasses(page, 'TXT proof');
    await page.setViewportSize(PHONE);
    await fitsAndPasses(page, 'TXT proof');
    await screenshot(page, 'mail-txt-proof-phone');
    await page.setViewportSize(DESKTOP);
    expect((await mailDomains()).filter((d) => d.domain === FOREIGN)).toEqual([]);

    await proveDomain(app, holder.accountId, FOREIGN);
    await form.getByRole('button', { name: 'Enable mail' }).click();
    await page.getByRole('heading', { level: 1, name: FOREIGN }).waitFor({ timeout: 10_000 });
  });

  it('disables mail for a domain after confirming: it leaves the list', async () => {
    const { page } = browser;
    await page.getByTestId('disable-mail').getByRole('button', { name: 'Disable mail' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Disable mail for ${FOREIGN}?`).waitFor();
    await dialog.getByRole('button', { name: 'Disable mail' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mail' }).waitFor({ timeout: 10_000 });
    const list = page.getByTestId('mail-domains');
    await list.getByTestId(`mail-domain-${REGISTERED}`).waitFor();
    await expect(list.getByTestId(`mail-domain-${FOREIGN}`).count()).resolves.toBe(0);
    await expect(list.getByTestId(`mail-domain-${REGISTERED}`).textContent()).resolves.toContain('active');
  });

  it('lists the domains with their expiry and auto-renew; turning auto-renew off persists after a reload', async () => {
    const { page } = browser;
    await page.getByRole('navigation').getByRole('link', { name: 'Domains', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    const row = page.getByTestId(`domain-${REGISTERED}`);
    await row.waitFor();
    const day = String((await domain(REGISTERED)).expires_at).slice(0, 10);
    await expect(row.textContent()).resolves.toContain(day);
    await expect(row.textContent()).resolves.toContain('active');
    await expect(row.getByText('on', { exact: true }).count()).resolves.toBe(1);
    await expect(page.getByTestId(`domain-${UNPAID}`).textContent()).resolves.toContain('pending payment');
    await fitsAndPasses(page, '/domains');
    pages.push('/domains');

    await row.getByRole('link', { name: REGISTERED }).click();
    await page.getByRole('heading', { level: 1, name: REGISTERED }).waitFor();
    pages.push(new URL(page.url()).pathname);
    const renewal = page.getByTestId('renewal');
    await expect(renewal.textContent()).resolves.toBe(`Renews automatically before its registration ends on ${day}.`);
    const autoRenew = page.getByRole('checkbox', { name: 'Renew automatically' });
    await expect(autoRenew.isChecked()).resolves.toBe(true);
    await autoRenew.uncheck();
    await page.getByRole('status').getByText('Renew automatically: off.').waitFor({ timeout: 10_000 });
    await renewal.getByText(`ends on ${day} and is not renewed`).waitFor();
    await fitsAndPasses(page, 'domain page');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: REGISTERED }).waitFor();
    await expect(page.getByRole('checkbox', { name: 'Renew automatically' }).isChecked()).resolves.toBe(false);
    await expect(page.getByRole('checkbox', { name: 'Transfer lock' }).isChecked()).resolves.toBe(true);
    expect((await domain(REGISTERED)).auto_renew).toBe(false);
    await screenshot(page, 'domain-page');
  });

  it('refuses a single nameserver beside the field, then saves two', async () => {
    const { page } = browser;
    const form = page.getByTestId('nameservers');
    const field = form.getByLabel('Nameservers');
    await field.fill('ns1.example.net');
    await form.getByRole('button', { name: 'Save nameservers' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await expect(describedText(field)).resolves.toMatch(/Nameservers must list 2 to 13 host names\./);
    await field.fill('ns1.example.net\nns2.example.net');
    await form.getByRole('button', { name: 'Save nameservers' }).click();
    await form.getByText('Nameservers saved.').waitFor({ timeout: 10_000 });
    expect((await domain(REGISTERED)).nameservers).toEqual(['ns1.example.net', 'ns2.example.net']);
  });

  it("keeps an unpaid domain's settings disabled and says why", async () => {
    const { page } = browser;
    const unpaid = await domain(UNPAID);
    await page.goto(`${app.url}/domains/${unpaid.id}`);
    await page.getByRole('heading', { level: 1, name: UNPAID }).waitFor();
    await page.getByTestId('renewal').getByText('Not registered yet').waitFor();
    const autoRenew = page.getByRole('checkbox', { name: 'Renew automatically' });
    await expect(autoRenew.isDisabled()).resolves.toBe(true);
    await expect(describedText(autoRenew)).resolves.toContain('its invoice is open');
    await expect(page.getByRole('button', { name: 'Save nameservers' }).isDisabled()).resolves.toBe(true);
    await fitsAndPasses(page, 'unpaid domain');
  });

  it('fits every mail and domain page into a phone screen, accessibly', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    expect(pages).toHaveLength(4);
    for (const [i, path] of pages.entries()) {
      await page.goto(`${app.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      await fitsAndPasses(page, path);
      await screenshot(page, `mail-domains-phone-${i + 1}`);
    }
    await page.setViewportSize(DESKTOP);
  });

  it('deletes a mailbox after confirming', async () => {
    const { page } = browser;
    await page.goto(`${app.url}${pages[1]}`);
    const row = page.getByTestId(`mailbox-info@${REGISTERED}`);
    await row.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: `Delete info@${REGISTERED}?` });
    await dialog.getByText('all of its mail are deleted permanently').waitFor();
    await dialog.getByRole('button', { name: 'Delete mailbox' }).click();
    await page.getByTestId('mailboxes').getByText('No mailboxes yet.').waitFor({ timeout: 10_000 });
    await page.getByTestId('mailbox-count').getByText('0', { exact: true }).waitFor();
    await expect(mailboxes()).resolves.toBe(0);
  });

  it('shows a mailbox created elsewhere (an API key) on /mail/:id without a reload', async () => {
    const { page } = browser;
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['mail:read', 'mail:write'],
    });
    expect(minted.status, minted.text).toBe(201);
    await page.goto(`${app.url}${pages[1]}`);
    await page.getByTestId('mailboxes').getByText('No mailboxes yet.').waitFor();
    await page.getByTestId('live-status').getByText('live').waitFor();
    const loads: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && loads.push(f.url()));
    const created = await app.call('POST', '/v1/mail/mailboxes', {
      key: minted.body.key,
      body: { domain_id: Number(pages[1].split('/').pop()), local_part: 'elsewhere', password: 'a long secret 12345' },
    });
    expect(created.status, created.text).toBe(200);
    await page.getByTestId(`mailbox-elsewhere@${REGISTERED}`).waitFor({ timeout: 10_000 });
    await page.getByTestId('mailbox-count').getByText('1', { exact: true }).waitFor();
    expect(loads).toEqual([]);
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
