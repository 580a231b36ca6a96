import type { Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  dashboardWithServer,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  pageWidth,
  screenshot,
  type Browser,
  signInLive,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

/** Goes to a page through the header's link, as a person does (no reload). */
async function open(page: Page, link: string, heading: string) {
  await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The error shown beside a field: its text, and the field pointing at it as invalid. */
async function fieldError(field: ReturnType<Page['getByLabel']>, text: RegExp) {
  await expect.poll(() => field.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
  const id = (await field.getAttribute('aria-describedby'))!;
  const error = field.page().locator(`[id="${id}"]`);
  await expect(error.textContent()).resolves.toMatch(text);
  // Beside it: the error sits in the field's own label.
  await expect(error.evaluate((el) => el.closest('label') !== null)).resolves.toBe(true);
}

/** Webhooks, API keys, auto-recharge and the events' resource filter, as a customer uses them. */
describe.skipIf(!hasChromium)('dashboard webhooks, keys, auto-recharge and event filters in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let serverId: string;
  let browser: Browser;
  let receiver: Receiver;
  let webhookId: string;
  let firstSecret: string;
  let rotatedSecret: string;
  const pageErrors: string[] = [];
  const runDueWork = () => app.runDueWork();
  const apiWebhook = async (id: string) =>
    app.call('GET', `/v1/webhooks/${id}`, {
      key: (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['webhooks:read'] })).body
        .key,
    });

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    receiver = await startReceiver();
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await app?.stop();
  });

  it('adds a webhook for one kind; its secret is shown once with a Copy button', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await open(page, 'Webhooks', 'Webhooks');
    await page.getByText('No subscriptions yet.').waitFor();
    const form = page.getByTestId('webhook-new');
    await form.getByLabel('Endpoint URL').fill(`${receiver.url}/first`);
    await form.getByLabel('All kinds').uncheck();
    await form.getByRole('checkbox', { name: 'server.created' }).check();
    await form.getByRole('button', { name: 'Add subscription' }).click();
    const secret = page.getByTestId('created-secret');
    const value = (await secret.locator('code').textContent())!;
    expect(value).toMatch(/^whsec_/);
    firstSecret = value;
    const list = page.getByTestId('webhooks');
    await list.getByText(`${receiver.url}/first`).waitFor();
    webhookId = (await list.locator('tbody tr').first().getAttribute('data-testid'))!.replace('webhook-', '');
    expect((await apiWebhook(webhookId)).body).toMatchObject({ events: ['server.created'], isActive: true });
    await secret.getByRole('button', { name: 'Copy' }).click();
    await secret.getByRole('status').getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(value);
    await secret.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(value).count()).resolves.toBe(0);
    // The list shows it masked.
    await expect(list.textContent()).resolves.toContain(`whsec_****${value.slice(-4)}`);
  });

  it('edits the URL, kinds and description; a bad URL is refused beside its field', async () => {
    const { page } = browser;
    const editor = page.getByRole('button', { name: 'Edit URL, kinds or description' });
    await expect(editor.getAttribute('aria-expanded')).resolves.toBe('false');
    await editor.click();
    await expect(editor.getAttribute('aria-expanded')).resolves.toBe('true');
    const form = page.getByTestId('webhook-edit');
    const url = form.getByLabel('Endpoint URL');
    await url.fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await fieldError(url, /^Endpoint URL must use http or https\.$/);
    expect((await apiWebhook(webhookId)).body.url).toBe(`${receiver.url}/first`);

    await url.fill(`${receiver.url}/edited`);
    await form.getByRole('checkbox', { name: 'invoice.paid' }).check();
    await form.getByLabel('Description (optional)').fill('Staging receiver');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('webhook-manage').getByText('Changes saved.').waitFor();
    await expect(form.count()).resolves.toBe(0);
    const row = page.getByTestId(`webhook-${webhookId}`);
    await row.getByText('Staging receiver').waitFor();
    await expect(row.textContent()).resolves.toContain(`${receiver.url}/edited`);
    await expect(row.textContent()).resolves.toContain('server.created, invoice.paid');
    expect((await apiWebhook(webhookId)).body).toMatchObject({
      url: `${receiver.url}/edited`,
      events: ['server.created', 'invoice.paid'],
      description: 'Staging receiver',
    });
  });

  it('pauses and resumes it; a paused webhook says why it cannot send a test event', async () => {
    const { page } = browser;
    const manage = page.getByTestId('webhook-manage');
    const row = page.getByTestId(`webhook-${webhookId}`);
    await manage.getByRole('button', { name: 'Pause' }).click();
    await row.getByText('paused').waitFor();
    expect((await apiWebhook(webhookId)).body.isActive).toBe(false);
    const test = manage.getByRole('button', { name: 'Send test event' });
    await expect(test.isDisabled()).resolves.toBe(true);
    await expect(test.getAttribute('title')).resolves.toMatch(/paused/);
    await manage.getByRole('button', { name: 'Resume' }).click();
    await row.getByText('active').waitFor();
    expect((await apiWebhook(webhookId)).body.isActive).toBe(true);
    await expect(test.isEnabled()).resolves.toBe(true);
  });

  it('rotates the secret after a confirmation: the new one is shown once, the old one stops', async () => {
    const { page } = browser;
    const manage = page.getByTestId('webhook-manage');
    await manage.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'Rotate the signing secret?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(manage.getByTestId('new-secret').count()).resolves.toBe(0);
    await manage.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = manage.getByTestId('new-secret').locator('code');
    rotatedSecret = (await shown.textContent())!;
    expect(rotatedSecret).toMatch(/^whsec_/);
    await page
      .getByTestId(`webhook-${webhookId}`)
      .getByText(`whsec_****${rotatedSecret.slice(-4)}`)
      .waitFor();
    await manage.getByTestId('new-secret').getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(rotatedSecret).count()).resolves.toBe(0);
  });

  it('sends a test event: it shows in the delivery log and succeeds there without a reload, signed', async () => {
    const { page } = browser;
    const loads: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && loads.push(f.url()));
    const manage = page.getByTestId('webhook-manage');
    await manage.getByRole('button', { name: 'Send test event' }).click();
    await manage.getByText(/Test event queued/).waitFor();
    const delivery = page.getByTestId('delivery').filter({ hasText: 'webhook.test' });
    await delivery.getByTestId('delivery-status').getByText('pending').waitFor({ timeout: 10_000 });
    await runDueWork();
    await delivery.getByTestId('delivery-status').getByText('succeeded').waitFor({ timeout: 10_000 });
    await expect(delivery.textContent()).resolves.toContain('200');
    expect(loads).toEqual([]);
    const got = receiver.received.filter((r) => r.path === '/edited');
    expect(got).toHaveLength(1);
    const event = new Stripe('sk_test_unused').webhooks.constructEvent(
      got[0].body,
      String(got[0].headers['x-service-signature']),
      rotatedSecret,
    );
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId } });
    expect(() =>
      new Stripe('sk_test_unused').webhooks.constructEvent(
        got[0].body,
        String(got[0].headers['x-service-signature']),
        firstSecret,
      ),
    ).toThrow(/signature/i);
    await screenshot(page, 'webhooks-test-event');
  });

  it('deletes the webhook after a confirmation', async () => {
    const { page } = browser;
    await page.getByTestId('webhook-manage').getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog')
      .filter({ hasText: 'Delete this webhook?' })
      .getByRole('button', { name: 'Delete webhook' })
      .click();
    await page.getByText('No subscriptions yet.').waitFor();
    await page.getByText(`Deleted the webhook to ${receiver.url}/edited.`).waitFor();
    expect((await apiWebhook(webhookId)).status).toBe(404);
  });

  it('mints a key with an expiry shown in the list, copies it, and refuses a past date beside the field', async () => {
    const { page } = browser;
    await open(page, 'API keys', 'API keys');
    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Mint key' }) });
    // No scope is ticked for a new key: one is chosen before it can be minted.
    await form.getByRole('checkbox', { name: 'account:read' }).check();
    const expiry = form.getByLabel('Expires');
    await expect(expiry.inputValue()).resolves.toBe('never');
    await expiry.selectOption('On a date…');
    const expires = form.getByLabel('Expiry date (YYYY-MM-DD)');
    await form.getByLabel('Name').fill('too late');
    // Typed in the console's one date format, checked before it is sent.
    await expires.fill('01/02/2027');
    await form.getByRole('button', { name: 'Mint key' }).click();
    await fieldError(expires, /^Type the date as YYYY-MM-DD/);
    await expires.fill('2020-01-01');
    await form.getByRole('button', { name: 'Mint key' }).click();
    await fieldError(expires, /^Expiry date must be in the future\.$/);

    const day = new Date((await app.now()).getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
    await form.getByLabel('Name').fill('expiring');
    await expires.fill(day);
    await form.getByRole('button', { name: 'Mint key' }).click();
    const minted = page.getByTestId('minted-key');
    const key = (await minted.getByTestId('minted-key-value').textContent())!;
    expect(key).toMatch(/^svc_/);
    await expect(minted.textContent()).resolves.toContain(`It expires ${day} 23:59 UTC`);
    const row = page.getByTestId(`key-${key.slice(0, 12)}`);
    await expect(row.getByTestId('key-expires').textContent()).resolves.toBe(`${day} 23:59 UTC`);
    // The form is ready for the next key: no expiry, no error.
    await expect(expiry.inputValue()).resolves.toBe('never');
    await expect(expires.count()).resolves.toBe(0);

    await minted.getByRole('button', { name: 'Copy' }).click();
    await minted.getByRole('status').getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
    expect((await app.call('GET', '/v1/account', { key })).status).toBe(200);

    // A key minted without an expiry says "never".
    await form.getByLabel('Name').fill('forever');
    await form.getByRole('button', { name: 'Mint key' }).click();
    await minted.getByText('It never expires.').waitFor();
    const forever = (await minted.getByTestId('minted-key-value').textContent())!;
    expect(forever).not.toBe(key);
    await expect(
      page
        .getByTestId(`key-${forever.slice(0, 12)}`)
        .getByTestId('key-expires')
        .textContent(),
    ).resolves.toBe('never');

    // A browser that refuses the clipboard: the key is selected and the page says how to copy it.
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('refused', 'NotAllowedError'));
    });
    await minted.getByRole('button', { name: 'Copy' }).click();
    await minted.getByRole('status').getByText('Press Ctrl+C to copy').waitFor();
    await expect(page.evaluate(() => window.getSelection()?.toString())).resolves.toBe(forever);
    await screenshot(page, 'keys-minted');
  });

  it('sets auto-recharge in the wallet card; a threshold out of bounds is refused beside its field', async () => {
    const { page } = browser;
    await open(page, 'Billing', 'Billing');
    const wallet = page.getByTestId('wallet');
    await expect(wallet.getByTestId('auto-recharge-summary').textContent()).resolves.toBe('Off');
    await wallet.getByRole('button', { name: 'Change auto-recharge' }).click();
    const form = wallet.getByTestId('auto-recharge');
    await form.getByLabel('Recharge by card when the balance runs low').check();
    const threshold = form.getByLabel('When the balance falls below (USD)');
    const amount = form.getByLabel('Top up by (USD)');
    await threshold.fill('ten');
    await amount.fill('25');
    await form.getByRole('button', { name: 'Save' }).click();
    await fieldError(threshold, /Enter an amount in dollars/);

    await threshold.fill('20000');
    await form.getByRole('button', { name: 'Save' }).click();
    await fieldError(threshold, /^Threshold must be between \$0\.01 and \$10,000\.00\.$/);
    await expect(amount.getAttribute('aria-invalid')).resolves.toBeNull();
    // Nothing was set.
    const billingKey = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: ['billing:read'] })
    ).body.key;
    const autoRecharge = async () =>
      (await app.call('GET', '/v1/billing/wallet', { key: billingKey })).body.auto_recharge;
    await expect(autoRecharge()).resolves.toMatchObject({ enabled: false });

    await threshold.fill('10');
    await form.getByRole('button', { name: 'Save' }).click();
    await wallet.getByText('Auto-recharge saved.').waitFor();
    await wallet
      .getByTestId('auto-recharge-summary')
      .getByText('On: $25.00 by card when the balance falls below $10.00', { exact: true })
      .waitFor();
    await expect(autoRecharge()).resolves.toMatchObject({
      enabled: true,
      threshold_usd_cents: 1000,
      amount_usd_cents: 2500,
    });
    await screenshot(page, 'billing-auto-recharge');
  });

  it('filters the events by the resource they name, next to the kind filter', async () => {
    const { page } = browser;
    await open(page, 'Live events', 'Live events');
    const feed = page.getByTestId('event-feed');
    await feed.getByText('server.created').first().waitFor({ timeout: 10_000 });
    await app.admin('POST', `/admin/accounts/${holder.accountId}/wallet/deposits`, {
      amountUsdCents: 700,
      gateway: 'online',
    });
    await feed.getByText('wallet.deposit.received').first().waitFor({ timeout: 10_000 });
    const resource = page.getByLabel('Resource id');
    await resource.fill(serverId);
    await resource.press('Enter');
    await expect.poll(() => feed.getByText('wallet.deposit.received').count(), { timeout: 10_000 }).toBe(0);
    await feed.getByText('server.created').first().waitFor();
    const items = await feed.locator('li').allTextContents();
    for (const item of items) expect(item).toContain(serverId);

    await resource.fill('not-an-id');
    await resource.press('Enter');
    await fieldError(resource, /^Resource must be a resource id such as srv_…\.$/);
    await resource.fill('');
    await resource.press('Enter');
    await feed.getByText('wallet.deposit.received').first().waitFor();
  });

  it('fits each page into 390 px without sideways scrolling, with no serious axe violation at either size', async () => {
    const { page } = browser;
    // A webhook with a delivery, so the page shows its widest parts.
    const key = (
      await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
        scopes: ['webhooks:read', 'webhooks:write', 'servers:read'],
      })
    ).body.key;
    const hook = await app.call('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/a-rather-long-path/for-a-narrow-screen`, events: ['*'], description: 'Layout' },
    });
    expect(hook.status, hook.text).toBe(200);
    expect((await app.call('POST', `/v1/webhooks/${hook.body.id}/test`, { key })).status).toBe(200);
    await runDueWork();
    const pages: [string, string, (p: Page) => Promise<void>][] = [
      [
        'webhooks',
        '/webhooks',
        async (p) => {
          await p.getByTestId('delivery').first().waitFor();
          // The editor open on the list of kinds: the widest form of the page.
          await p.getByRole('button', { name: 'Edit URL, kinds or description' }).click();
          await p.getByTestId('webhook-edit').getByLabel('All kinds').uncheck();
        },
      ],
      ['keys', '/keys', (p) => p.getByTestId('keys').waitFor()],
      [
        'billing',
        '/billing',
        async (p) => {
          await p.getByTestId('transaction').first().waitFor();
          await p.getByRole('button', { name: 'Change auto-recharge' }).click();
          await p.getByTestId('auto-recharge').waitFor();
        },
      ],
      ['events', '/events', (p) => p.getByTestId('event-feed').waitFor()],
    ];
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      for (const [name, path, ready] of pages) {
        await page.goto(`${app.url}${path}`);
        await ready(page);
        const width = await pageWidth(page);
        expect(width.scroll, `${name} at ${size.width} px`).toBeLessThanOrEqual(width.window);
        expect(await axeViolations(page), `${name} at ${size.width} px`).toEqual([]);
        await screenshot(page, `webhooks-keys-${name}-${size.width}`);
      }
    }
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
