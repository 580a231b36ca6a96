import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  browserSignIn,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  screenshot,
  type Browser,
  DESKTOP,
  PHONE,
  signInLive,
  closeConsole,
} from '../helpers/browser.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';

/** The balance as the page shows it. */
const balance = (page: Page) => page.getByTestId('wallet-balance').textContent();

/** Waits (the page updates live) until the balance reads `text`. */
const balanceIs = (page: Page, text: string) =>
  page.getByTestId('wallet-balance').getByText(text, { exact: true }).waitFor({ timeout: 10_000 });

/** The operator issues an open invoice to the account; answers its number. */
async function issueInvoice(app: BuiltApp, accountId: string, description: string, amountUsdCents: number) {
  const r = await app.admin('POST', `/admin/accounts/${accountId}/invoices`, {
    items: [{ description, amountUsdCents }],
  });
  expect(r.status, r.text).toBe(201);
  return r.body.number as string;
}

/** Pays an invoice through the page: its Pay button, the method in the dialog, the dialog's Pay button. */
async function payThroughPage(page: Page, number: string, method: string) {
  const row = page.getByTestId(`invoice-${number}`);
  await row.getByRole('button', { name: 'Pay', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Pay ${number}?` });
  await dialog.getByLabel('Pay with').selectOption({ label: method });
  await dialog.getByRole('button', { name: /^Pay \$/ }).click();
}

/** The Billing page as a customer uses it: wallet, top-ups, transactions and paying invoices. */
describe.skipIf(!hasChromium)('dashboard billing page in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it('opens Billing from the header and shows the wallet and its opening balance', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('navigation').getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/billing');
    await balanceIs(page, '$500.00');
    await expect(page.getByTestId('wallet').textContent()).resolves.toContain('Auto-recharge');
    await page.getByTestId('invoices').getByText('No invoices yet.').waitFor();
    await page.getByTestId('transactions').getByRole('cell', { name: 'opening balance', exact: true }).waitFor();
  });

  it("pays an operator's invoice from the wallet: paid and the balance lower, without a reload", async () => {
    const { page } = browser;
    const number = await issueInvoice(app, holder.accountId, 'Consulting', 2500);
    // The new invoice arrives live (invoice.created).
    const row = page.getByTestId(`invoice-${number}`);
    await row.getByTestId('invoice-status').getByText('open').waitFor({ timeout: 10_000 });
    await expect(row.getByRole('cell', { name: '$25.00' }).count()).resolves.toBe(1);

    // Its lines open under it.
    const toggle = row.getByRole('button', { name: number });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    await row.getByText('Consulting').waitFor();

    const loads: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && loads.push(f.url()));
    await payThroughPage(page, number, 'Wallet ($500.00)');
    await row.getByTestId('invoice-status').getByText('paid').waitFor({ timeout: 10_000 });
    await balanceIs(page, '$475.00');
    await expect(row.getByRole('button', { name: 'Pay', exact: true }).count()).resolves.toBe(0);
    const newest = page.getByTestId('transaction').first();
    await expect(newest.textContent()).resolves.toContain('invoice payment');
    await expect(newest.textContent()).resolves.toContain('−$25.00');
    expect(loads).toEqual([]);
    await screenshot(page, 'billing-paid');
  });

  it('tops up $25 by card: the balance rises and the deposit is the newest transaction', async () => {
    const { page } = browser;
    const form = page.getByTestId('top-up');
    await form.getByLabel('Amount (USD)').fill('25');
    await form.getByLabel('Pay with').selectOption({ label: 'Card' });
    await form.getByRole('button', { name: 'Top up' }).click();
    await balanceIs(page, '$500.00');
    await form.getByRole('status').getByText('Added $25.00 to your wallet.').waitFor();
    const newest = page.getByTestId('transaction').first();
    await expect(newest.textContent()).resolves.toContain('deposit');
    await expect(newest.textContent()).resolves.toContain('+$25.00');
    await expect(newest.textContent()).resolves.toContain('$500.00');
    await expect(form.getByLabel('Amount (USD)').inputValue()).resolves.toBe('');
  });

  it('refuses a $1 top-up beside the field and changes nothing', async () => {
    const { page } = browser;
    const form = page.getByTestId('top-up');
    const before = await page.getByTestId('transaction').count();
    const amount = form.getByLabel('Amount (USD)');
    await amount.fill('1');
    await form.getByRole('button', { name: 'Top up' }).click();
    const error = form.getByText('Amount must be between $5.00 and $10,000.00.', { exact: true });
    await error.waitFor({ timeout: 10_000 });
    await expect(amount.getAttribute('aria-invalid')).resolves.toBe('true');
    const describedBy = await amount.getAttribute('aria-describedby');
    await expect(error.getAttribute('id')).resolves.toBe(describedBy);
    await expect(balance(page)).resolves.toBe('$500.00');
    await expect(page.getByTestId('transaction').count()).resolves.toBe(before);
    await screenshot(page, 'billing-top-up-refused');
  });

  it('fits /billing into a phone screen without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    await page.goto(`${app.url}/billing`);
    await page.getByTestId('transaction').first().waitFor();
    await page.getByTestId('invoices').getByRole('table').waitFor();
    await page.getByText('Loading…').first().waitFor({ state: 'detached' });
    const width = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      window: window.innerWidth,
    }));
    expect(width.scroll).toBeLessThanOrEqual(width.window);
    await screenshot(page, 'billing-phone');
  });

  it('pages the transactions, newest first, with Load more', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    // Ten operator deposits: 13 rows in all, one page of 10 and three more.
    for (let i = 0; i < 10; i++) {
      const r = await app.admin('POST', `/admin/accounts/${holder.accountId}/wallet/deposits`, {
        amountUsdCents: 500,
        gateway: 'card',
      });
      expect(r.status, r.text).toBe(201);
    }
    await balanceIs(page, '$550.00');
    const rows = page.getByTestId('transaction');
    // The wallet and the transactions read again apart, each as the deposits' events arrive.
    await rows.first().getByText('$550.00').waitFor();
    await expect.poll(() => rows.count()).toBe(10);
    await page.getByRole('button', { name: 'Load more' }).click();
    await rows.nth(12).waitFor();
    await expect(rows.count()).resolves.toBe(13);
    await expect(rows.last().textContent()).resolves.toContain('opening balance');
    await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);
  });

  it('shows a wallet too small for the invoice beside its Pay button and leaves it open', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    // A second customer with $10 in the wallet and a $25 invoice.
    const small = await accountHolder(app, { walletBalanceUsdCents: 1000 });
    const number = await issueInvoice(app, small.accountId, 'Consulting', 2500);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await browserSignIn(page, app.url, small.email, small.password, '/billing');
    await balanceIs(page, '$10.00');
    const row = page.getByTestId(`invoice-${number}`);
    // By keyboard: Enter opens the dialog on Cancel, Escape closes it with nothing paid.
    await row.getByRole('button', { name: 'Pay', exact: true }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Pay ${number}?` });
    await dialog.waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(row.getByTestId('invoice-status').textContent()).resolves.toBe('open');
    await payThroughPage(page, number, 'Wallet ($10.00)');
    const refusal = row.getByRole('alert');
    await refusal.getByText(/Insufficient wallet balance/).waitFor({ timeout: 10_000 });
    const pay = row.getByRole('button', { name: 'Pay', exact: true });
    await expect(pay.getAttribute('aria-describedby')).resolves.toBe(await refusal.getAttribute('id'));
    await expect(row.getByTestId('invoice-status').textContent()).resolves.toBe('open');
    await expect(balance(page)).resolves.toBe('$10.00');
    await screenshot(page, 'billing-insufficient');
    // Reloaded, the invoice is still open: nothing was taken.
    await page.reload();
    await page.getByTestId(`invoice-${number}`).getByTestId('invoice-status').getByText('open').waitFor();
    await balanceIs(page, '$10.00');
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
