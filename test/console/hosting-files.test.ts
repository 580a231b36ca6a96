import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAs, startBuiltApp, type BuiltApp } from '../helpers/built-app.ts';
import {
  axeViolations,
  browserSignIn,
  DESKTOP,
  hasChromium,
  launchBrowser,
  PHONE,
  pageWidth,
  screenshot,
  type Browser,
  closeConsole,
} from '../helpers/browser.ts';
import { activeHosting, domainName, siteDir } from '../helpers/hosting.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';
import { fitsAndPasses } from '../helpers/page-checks.ts';

/** The hosting control panel's Files, Domain and Terminal tabs, in Chromium, used as a person uses them. */
describe.skipIf(!hasChromium)('dashboard: hosting files, custom domain and terminal', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let hostingId: string;
  let siteDomain: string;
  const pageErrors: string[] = [];
  const onDisk = (p: string) => path.join(siteDir(app, hostingId), p);
  const tab = (slug: string) => `${app.url}/hosting/${hostingId}/${slug}`;
  /** The file manager's row of one entry. */
  const row = (page: Page, name: string) => page.getByTestId('hosting-files').getByTestId(`file-${name}`);

  beforeAll(async () => {
    app = await startBuiltApp();
    holder = await accountHolder(app);
    siteDomain = domainName('files');
    hostingId = await activeHosting(app, { accountId: holder.accountId, key: '', keyId: '' }, { domain: siteDomain });
    browser = await launchBrowser();
    browser.page.on('pageerror', (e) => pageErrors.push(e.message));
    await browserSignIn(browser.page, app.url, holder.email, holder.password);
  });
  afterAll(() => closeConsole(browser, app));

  it('opens a text file, edits and saves it; the change is on disk and still there after a reload', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/hosting/${hostingId}`);
    // Files is the control panel's first tab.
    await page.getByRole('navigation', { name: 'Control panel' }).getByRole('link', { name: 'Files' }).click();
    await row(page, 'index.html').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/hosting/${hostingId}/files`);
    await expect(row(page, 'index.html').textContent()).resolves.toMatch(/B/); // a size

    await row(page, 'index.html').getByRole('button', { name: 'index.html', exact: true }).click();
    const editor = page.getByTestId('file-editor');
    const content = editor.getByLabel('Content');
    await expect(content.inputValue()).resolves.toContain(`${siteDomain} is hosted here`);
    const edited = '<!doctype html>\n<h1>Edited in the console</h1>\n';
    await content.fill(edited);
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.getByRole('status').getByText('Saved.').waitFor();
    expect(fs.readFileSync(onDisk('public_html/index.html'), 'utf8')).toBe(edited);

    await page.reload();
    await row(page, 'index.html').getByRole('button', { name: 'index.html', exact: true }).click();
    await expect.poll(() => page.getByTestId('file-editor').getByLabel('Content').inputValue()).toBe(edited);
    await page.getByTestId('file-editor').getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('file-editor').waitFor({ state: 'detached' });
  });

  it('makes a folder (a taken name is refused beside the field), uploads a file into it and downloads it byte for byte', async () => {
    const { page } = browser;
    await page.goto(tab('files'));
    const name = page.getByLabel('New file or folder name');
    await name.fill('assets');
    await page.getByRole('button', { name: 'New folder' }).click();
    await row(page, 'assets').waitFor();
    expect(fs.statSync(onDisk('public_html/assets')).isDirectory()).toBe(true);
    await expect(name.inputValue()).resolves.toBe('');

    // The same name again: the API's refusal is shown next to the field.
    await name.fill('assets');
    await page.getByRole('button', { name: 'New folder' }).click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const errorId = await name.getAttribute('aria-describedby');
    await expect(page.locator(`#${errorId}`).textContent()).resolves.toMatch(/exists|taken|already/i);
    await name.fill('');

    await row(page, 'assets').getByRole('link', { name: 'assets/' }).click();
    await page.getByTestId('hosting-files').getByText('This folder is empty.').waitFor();
    expect(new URL(page.url()).searchParams.get('path')).toBe('/public_html/assets');
    await expect(
      page.getByRole('navigation', { name: 'Folder' }).locator('[aria-current="location"]').textContent(),
    ).resolves.toBe('assets');

    const bytes = randomBytes(64 * 1024 + 7);
    await page.getByLabel('Upload a file to this folder').setInputFiles({
      name: 'logo.bin',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    await page.getByRole('status').getByText('Uploaded logo.bin.').waitFor();
    await row(page, 'logo.bin').getByText('64.0 KiB').waitFor();
    expect(fs.readFileSync(onDisk('public_html/assets/logo.bin')).equals(bytes)).toBe(true);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row(page, 'logo.bin').getByRole('button', { name: 'Download logo.bin' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('logo.bin');
    const saved = await download.path();
    expect(fs.readFileSync(saved).equals(bytes)).toBe(true);

    // Back up the trail to the site's root.
    await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: 'public_html' }).click();
    await row(page, 'index.html').waitFor();
  });

  it('renames a file and deletes it after confirming (Cancel keeps it)', async () => {
    const { page } = browser;
    await page.goto(`${tab('files')}?path=${encodeURIComponent('/public_html/assets')}`);
    await row(page, 'logo.bin').getByRole('button', { name: 'Rename logo.bin' }).click();
    const form = page.getByTestId('rename-form');
    const to = form.getByLabel('New path for logo.bin');
    await expect(to.inputValue()).resolves.toBe('/public_html/assets/logo.bin');
    await to.fill('/public_html/assets/brand.bin');
    await form.getByRole('button', { name: 'Rename' }).click();
    await row(page, 'brand.bin').waitFor();
    await row(page, 'logo.bin').waitFor({ state: 'detached' });
    expect(fs.existsSync(onDisk('public_html/assets/brand.bin'))).toBe(true);
    expect(fs.existsSync(onDisk('public_html/assets/logo.bin'))).toBe(false);

    await row(page, 'brand.bin').getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Delete brand.bin?' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(fs.existsSync(onDisk('public_html/assets/brand.bin'))).toBe(true);

    await row(page, 'brand.bin').getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete file' }).click();
    await row(page, 'brand.bin').waitFor({ state: 'detached' });
    await page.getByTestId('hosting-files').getByText('This folder is empty.').waitFor();
    expect(fs.existsSync(onDisk('public_html/assets/brand.bin'))).toBe(false);

    // A new, empty text file in the root, then the folder itself (with its contents, said in the question).
    await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: 'public_html' }).click();
    await page.getByLabel('New file or folder name').fill('notes.txt');
    await page.getByRole('button', { name: 'New file' }).click();
    await row(page, 'notes.txt').getByText('0 B').waitFor();
    await row(page, 'assets').getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('everything in it').waitFor();
    await dialog.getByRole('button', { name: 'Delete folder' }).click();
    await row(page, 'assets').waitFor({ state: 'detached' });
    expect(fs.existsSync(onDisk('public_html/assets'))).toBe(false);
  });

  it('sets a custom domain: the ownership TXT to publish, then the DNS records, verify, remove', async () => {
    const { page } = browser;
    const custom = domainName('shop');
    await page.goto(tab('domain'));
    const section = page.getByTestId('hosting-domain');
    await section.getByText(`the site answers on ${siteDomain} only`).waitFor();
    await section.getByLabel('Custom domain').fill(custom);
    await section.getByRole('button', { name: 'Set custom domain' }).click();

    // Not registered in this account: the refusal's TXT value, shown to copy.
    const proof = section.getByTestId('ownership-txt');
    await proof.waitFor();
    const txt = (await proof.locator('code').textContent()) ?? '';
    expect(txt).toMatch(/^cloudhost-verify=[0-9a-f]{32}$/);
    await expect(proof.textContent()).resolves.toContain(custom);
    const field = section.getByLabel('Custom domain');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent()).resolves.toMatch(
      /not registered in this account: prove that you control it/,
    );
    await proof.getByRole('button', { name: 'Copy TXT record value' }).waitFor();
    await screenshot(page, 'hosting-domain-proof');

    const published = await app.admin('PUT', `/admin/dns/${custom}`, { txt: [txt] });
    expect(published.status, published.text).toBe(200);
    await section.getByRole('button', { name: 'Set custom domain' }).click();
    await section.getByTestId('custom-domain').getByText(custom).waitFor();
    await section.getByTestId('custom-domain-status').getByText('pending').waitFor();
    const records = section.getByTestId('dns-records');
    const aValue = await records
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'A', exact: true }) })
      .locator('code')
      .textContent();
    expect(aValue).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // DNS not pointing here yet: verify says what to do.
    await section.getByRole('button', { name: 'Verify' }).click();
    await section
      .getByRole('alert')
      .getByText(/has no DNS record yet/)
      .waitFor();
    await section.getByTestId('custom-domain-status').getByText('pending').waitFor();

    const pointed = await app.admin('PUT', `/admin/dns/${custom}`, { target: aValue, txt: [txt] });
    expect(pointed.status, pointed.text).toBe(200);
    await section.getByRole('button', { name: 'Verify' }).click();
    await section
      .getByRole('status')
      .getByText(/points here/)
      .waitFor();
    await section.getByTestId('custom-domain-status').getByText('attached').waitFor();
    const row = await readAs(app, holder.accountId, `/hosting/${hostingId}`);
    expect(row.customDomain.status).toBe('attached');

    await section.getByRole('button', { name: 'Remove custom domain' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: `Remove ${custom}?` }).waitFor();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await section.getByText(`the site answers on ${siteDomain} only`).waitFor();
    const after = await readAs(app, holder.accountId, `/hosting/${hostingId}`);
    expect(after.customDomain).toBeNull();
  });

  it('terminal: enables browser SSH after confirming, launches a session in a new tab, stops it', async () => {
    const { page, context } = browser;
    await page.goto(tab('terminal'));
    const section = page.getByTestId('hosting-terminal');
    await section.getByText('Browser SSH is off.').waitFor();
    await section.getByRole('button', { name: 'Enable browser SSH' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Enable', exact: true }).click();
    await section.getByTestId('ssh-state').getByText('enabled').waitFor();
    await expect(section.getByTestId('ssh-session').textContent()).resolves.toBe('none live');
    const stop = section.getByRole('button', { name: 'Stop session' });
    await expect(stop.isDisabled()).resolves.toBe(true);

    // The built server serves the terminal's script (the build copies it into dist/server/).
    const scripts: number[] = [];
    context.on('response', (r) => {
      if (new URL(r.url()).pathname === '/ssh-terminal/terminal.js') scripts.push(r.status());
    });
    const [opened] = await Promise.all([
      context.waitForEvent('page'),
      section.getByRole('button', { name: 'Launch terminal' }).click(),
    ]);
    opened.on('pageerror', (e) => pageErrors.push(`terminal tab: ${e.message}`));
    const href = (await section.getByRole('link', { name: 'Open the terminal' }).getAttribute('href')) ?? '';
    const url = new URL(href);
    expect(url.pathname).toMatch(/^\/ssh-terminal\/hss_\w+$/);
    expect(url.hash).toMatch(/^#token=sshs_[\w-]+$/);
    const sessionId = url.pathname.split('/').pop()!;
    await section.getByTestId('ssh-session').getByText(sessionId).waitFor();

    // The new tab is the terminal: the token leaves the address bar, and a command runs in the site.
    await opened
      .getByRole('status')
      .getByText(/^Connected as \w+, in \/public_html\.$/)
      .waitFor();
    expect(scripts).toEqual([200]);
    expect(new URL(opened.url())).toMatchObject({ pathname: url.pathname, hash: '' });
    await opened.getByLabel('Command').fill('ls -l');
    await opened.getByLabel('Command').press('Enter');
    await opened
      .getByLabel('Terminal output')
      .getByText(/-rw-r--r-- +\d+ +[\d-]+ [\d:]+ +index\.html/)
      .waitFor();
    await opened.setViewportSize(PHONE);
    const { scroll, window } = await pageWidth(opened);
    expect(scroll).toBeLessThanOrEqual(window);
    expect(await axeViolations(opened)).toEqual([]);
    await screenshot(opened, 'ssh-terminal-390');

    await stop.click();
    await section.getByRole('status').getByText(`Session ${sessionId} stopped.`).waitFor();
    await section.getByTestId('ssh-session').getByText('none live').waitFor();
    // The stopped session's tab can run nothing more: the server holds no live session for it.
    await opened.getByLabel('Command').fill('pwd');
    await opened.getByLabel('Command').press('Enter');
    await opened
      .getByRole('status')
      .getByText(/not open/)
      .waitFor();
    await expect(opened.getByLabel('Command').isDisabled()).resolves.toBe(true);
    await opened.close();
  });

  it('each tab fits a phone (no sideways scroll) and has no serious axe violation at either size', async () => {
    const { page } = browser;
    const problems: string[] = [];
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      // Files, with a text file open and the rename form showing.
      await page.goto(tab('files'));
      await row(page, 'index.html').getByRole('button', { name: 'index.html', exact: true }).click();
      await page.getByTestId('file-editor').getByLabel('Content').waitFor();
      await row(page, 'notes.txt').getByRole('button', { name: 'Rename notes.txt' }).click();
      await page.getByTestId('rename-form').waitFor();
      await check(page, size.width, 'files', problems);
      await screenshot(page, `hosting-files-${size.width}`);
      // Domain, with a refusal naming the long TXT value to publish.
      await page.goto(tab('domain'));
      await page.getByLabel('Custom domain').fill(domainName('phone'));
      await page.getByRole('button', { name: 'Set custom domain' }).click();
      await page.getByTestId('ownership-txt').waitFor();
      await check(page, size.width, 'domain', problems);
      await screenshot(page, `hosting-domain-${size.width}`);
      // Terminal, enabled, no session live.
      await page.goto(tab('terminal'));
      await page.getByTestId('ssh-session').getByText('none live').waitFor();
      await check(page, size.width, 'terminal', problems);
      await screenshot(page, `hosting-terminal-${size.width}`);
    }
    expect(problems).toEqual([]);
  });

  it('brings the file editor and the rename field into view with the keyboard in them, below a long folder, at 390 and 1280 px', async () => {
    const { page } = browser;
    // Enough files that what opens under the list starts below the fold.
    for (let i = 0; i < 40; i++)
      fs.writeFileSync(onDisk(`public_html/page-${String(i).padStart(2, '0')}.html`), `<p>${i}</p>\n`);
    /** The element is focused and wholly inside the window. */
    const inViewAndFocused = (selector: string) =>
      page.locator(selector).evaluate((el) => {
        const box = el.getBoundingClientRect();
        return {
          focused: el === document.activeElement,
          inView: box.top >= 0 && box.top < window.innerHeight && box.left >= 0 && box.right <= window.innerWidth,
        };
      });
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(tab('files'));
      const first = row(page, 'page-00.html');
      await first.getByRole('button', { name: 'page-00.html', exact: true }).click();
      const content = page.getByTestId('file-editor').getByLabel('Content');
      await expect.poll(() => content.inputValue()).toBe('<p>0</p>\n');
      await expect
        .poll(() => inViewAndFocused('[data-testid="file-editor"] textarea'))
        .toEqual({
          focused: true,
          inView: true,
        });
      // Typing goes into the file at once.
      await page.keyboard.type('<!-- typed -->');
      await expect(content.inputValue()).resolves.toContain('<!-- typed -->');
      await fitsAndPasses(page, 'editor opened');
      await page.getByTestId('file-editor').getByRole('button', { name: 'Close' }).click();

      await page.evaluate(() => window.scrollTo(0, 0));
      await first.getByRole('button', { name: 'Rename page-00.html' }).click();
      const field = page.getByTestId('rename-form').getByRole('textbox');
      await expect
        .poll(() => inViewAndFocused('[data-testid="rename-form"] input'))
        .toEqual({
          focused: true,
          inView: true,
        });
      // The name is selected, not its folder: typing replaces the name only.
      await expect(
        field.evaluate((el: HTMLInputElement) => el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0)),
      ).resolves.toBe('page-00.html');
      await page.keyboard.type('renamed.html');
      await expect(field.inputValue()).resolves.toBe('/public_html/renamed.html');
      await fitsAndPasses(page, 'rename opened');
      await screenshot(page, `hosting-files-focus-${size.width}`);
      await page.getByTestId('rename-form').getByRole('button', { name: 'Cancel' }).click();
    }
  }, 60_000);

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});

/** Sideways scroll and axe's serious or critical violations on the page as it stands. */
async function check(page: Page, width: number, name: string, problems: string[]): Promise<void> {
  const { scroll, window } = await pageWidth(page);
  if (scroll > window) problems.push(`${width} px ${name}: page is ${scroll} px wide`);
  for (const v of await axeViolations(page)) problems.push(`${width} px ${name}: ${v}`);
}
