import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAs, type BuiltApp } from '../helpers/built-app.ts';
import {
  dashboardWithServer,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  screenshot,
  type Browser,
  signInLive,
  closeConsole,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';
import { describedText, fitsAndPasses } from '../helpers/page-checks.ts';

const SUBJECT = 'Mail to info@ bounces';

/** Support tickets in Chromium, as a customer uses them; support answers through the operator API. */
describe.skipIf(!hasChromium)('dashboard: support tickets', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let ticketPath = '';
  const pageErrors: string[] = [];
  const tickets = async () => (await readAs(app, holder.accountId, '/tickets')).data;
  const thread = (page: Page) => page.getByTestId('message');

  beforeAll(async () => {
    ({ app, holder } = await dashboardWithServer());
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(() => closeConsole(browser, app));

  it('opens a ticket through the form, an empty subject refused beside the field first', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('navigation').getByRole('link', { name: 'Support', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Support' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/tickets');
    await page.getByTestId('tickets').getByText('No tickets yet.').waitFor();
    await fitsAndPasses(page, '/tickets, empty');

    await page.getByRole('link', { name: 'New ticket', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'New ticket' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/tickets/new');
    const form = page.getByTestId('new-ticket');
    const subject = form.getByLabel('Subject');
    await form.getByLabel('Message').fill('Since this morning, mail to info@ comes back undelivered.');
    await form.getByRole('button', { name: 'Open ticket' }).click();
    await expect(subject.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(describedText(subject)).resolves.toContain('Give the ticket a subject.');
    await expect(form.getByLabel('Message').getAttribute('aria-invalid')).resolves.toBeNull();
    await fitsAndPasses(page, '/tickets/new, refused');
    await screenshot(page, 'support-new-refused');
    await expect(tickets()).resolves.toEqual([]);

    await subject.fill(SUBJECT);
    await form.getByLabel('Department').selectOption({ label: 'Technical' });
    await form.getByLabel('Priority').selectOption({ label: 'High' });
    await form.getByRole('button', { name: 'Open ticket' }).click();
    await page.getByRole('heading', { level: 1, name: SUBJECT }).waitFor({ timeout: 10_000 });
    ticketPath = new URL(page.url()).pathname;
    expect(ticketPath).toMatch(/^\/tickets\/tkt_\w+$/);
    await page.getByTestId('ticket-status').getByText('open').waitFor();
    await expect(thread(page).count()).resolves.toBe(1);
    await expect(thread(page).first().textContent()).resolves.toMatch(/^You.*undelivered\.$/);
    const [stored] = await tickets();
    expect(stored).toMatchObject({ subject: SUBJECT, department: 'technical', priority: 'high', status: 'open' });
    await fitsAndPasses(page, 'ticket page');
  });

  it("shows support's reply live, without a reload", async () => {
    const { page } = browser;
    const loads: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && loads.push(f.url()));
    const [ticket] = await tickets();
    const r = await app.admin('POST', `/admin/tickets/${ticket.id}/replies`, {
      body: 'Could you paste the bounce message here?',
    });
    expect(r.status, r.text).toBe(201);
    const reply = thread(page).nth(1);
    await reply.getByText('Could you paste the bounce message here?').waitFor({ timeout: 10_000 });
    await reply.getByText('Support', { exact: true }).waitFor();
    await page.getByTestId('ticket-status').getByText('answered').waitFor();
    expect(loads).toEqual([]);
    await screenshot(page, 'support-answered');
  });

  it('answers support from the reply box', async () => {
    const { page } = browser;
    const box = page.getByLabel('Your reply');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect(box.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(describedText(box)).resolves.toContain('Write your reply first.');
    await box.fill('550 5.1.1 User unknown');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const mine = thread(page).nth(2);
    await mine.getByText('550 5.1.1 User unknown').waitFor({ timeout: 10_000 });
    await mine.getByText('You', { exact: true }).waitFor();
    await page.getByTestId('ticket-status').getByText('open').waitFor();
    await expect(box.inputValue()).resolves.toBe('');
    await expect(box.getAttribute('aria-invalid')).resolves.toBeNull();
    const [ticket] = await tickets();
    const { messages } = await readAs(app, holder.accountId, `/tickets/${ticket.id}`);
    expect(messages.map((m: { author: string }) => m.author)).toEqual(['customer', 'staff', 'customer']);
  });

  it('closes the ticket after confirming: no reply box any more', async () => {
    const { page } = browser;
    const close = page.getByTestId('close-ticket').getByRole('button', { name: 'Close ticket' });
    await close.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await tickets())[0].status).toBe('open');
    await close.click();
    await dialog.getByRole('button', { name: 'Close ticket' }).click();
    await page.getByTestId('ticket-status').getByText('closed').waitFor({ timeout: 10_000 });
    await page.getByText('This ticket is closed.').waitFor();
    await expect(page.getByLabel('Your reply').count()).resolves.toBe(0);
    await expect(page.getByTestId('close-ticket').count()).resolves.toBe(0);
    expect((await tickets())[0].status).toBe('closed');
    await fitsAndPasses(page, 'closed ticket');
  });

  it('lists the ticket with its number, subject, status, priority and last update', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: '← Support' }).click();
    const [ticket] = await tickets();
    const row = page.getByTestId(`ticket-${ticket.number}`);
    await row.getByRole('link', { name: ticket.number }).waitFor();
    await row.getByText(SUBJECT).waitFor();
    await row.getByText('closed', { exact: true }).waitFor();
    await row.getByText('high', { exact: true }).waitFor();
    await expect(row.locator('time').getAttribute('datetime')).resolves.toBe(
      new Date(ticket.lastReplyAt).toISOString(),
    );
    await fitsAndPasses(page, '/tickets');
  });

  it('fits every support page into a phone screen, accessibly', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    for (const [i, path] of ['/tickets', '/tickets/new', ticketPath].entries()) {
      await page.goto(`${app.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      await fitsAndPasses(page, path);
      await screenshot(page, `support-phone-${i + 1}`);
    }
    await page.setViewportSize(DESKTOP);
  });

  it('shows a reply and a close made elsewhere (an API key) on /tickets/:id without a reload', async () => {
    const { page } = browser;
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['tickets:read', 'tickets:write'],
    });
    expect(minted.status, minted.text).toBe(201);
    const key = minted.body.key as string;
    const opened = await app.call('POST', '/v1/tickets', {
      key,
      body: { subject: 'Opened from a script', message: 'Sent by our monitoring.' },
    });
    expect(opened.status, opened.text).toBe(200);
    await page.goto(`${app.url}/tickets/${opened.body.id}`);
    await page.getByRole('heading', { level: 1, name: /Opened from a script/ }).waitFor();
    await page.getByTestId('live-status').getByText('live').waitFor();
    const loads: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && loads.push(f.url()));

    const reply = await app.call('POST', `/v1/tickets/${opened.body.id}/reply`, {
      key,
      body: { body: 'Still failing at 10:05.' },
    });
    expect(reply.status, reply.text).toBe(200);
    await thread(page).nth(1).getByText('Still failing at 10:05.').waitFor({ timeout: 10_000 });

    const close = await app.call('POST', `/v1/tickets/${opened.body.id}/close`, { key });
    expect(close.status, close.text).toBe(200);
    await page.getByTestId('ticket-status').getByText('closed').waitFor({ timeout: 10_000 });
    await page.getByText('This ticket is closed.').waitFor();
    await expect(page.getByLabel('Your reply').count()).resolves.toBe(0);
    expect(loads).toEqual([]);
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
