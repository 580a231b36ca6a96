import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
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
  renewSession,
  signInLive,
} from '../helpers/browser.ts';
import { git } from '../helpers/git.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import {
  clickTab,
  confirm,
  downloadThrough,
  overflowingCards,
  PANEL_TABS,
  statusSays,
} from '../helpers/hosting-panel.ts';
import { accountHolder, type Holder } from '../helpers/oauth.ts';

/** The hosting control panel's tabs as a customer uses them, in Chromium. */
describe.skipIf(!hasChromium)('hosting control panel tabs in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let browser: Browser;
  let hostingId: string;
  /** An API key of the same account, to check through the public API what the page did. */
  let key: string;
  /** Where the test's git repositories live. */
  let work: string;
  const pageErrors: string[] = [];

  /** A GraphQL read or write with the key; answers `data`, failing the test on an error. */
  const api = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = await gql(app, query, { key, variables: { id: hostingId, ...variables } });
    expect(r.body.errors, r.text).toBeUndefined();
    return r.body.data;
  };

  /** Opens a tab by its URL and waits for its heading. */
  const openTab = async (page: Page, slug: string, heading: string) => {
    await page.goto(`${app.url}/hosting/${hostingId}/${slug}`);
    await page.getByRole('heading', { level: 2, name: heading, exact: true }).waitFor();
    await page.getByText('Loading…').first().waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    // Local git paths are the only repositories the deploy may reach without a network (egress policy).
    app = await startBuiltApp({ webhookAllowPrivate: true, hostingAllowLocalGit: true });
    holder = await accountHolder(app);
    hostingId = await activeHosting(app, { accountId: holder.accountId, key: '', keyId: '' });
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes: MANAGE });
    expect(minted.status, minted.text).toBe(201);
    key = minted.body.key;
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-panel-git-'));
    browser = await launchBrowser();
    await signInLive(browser, app.url, holder, pageErrors);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('opens Backups from the control panel, backs up, restores the backup and deletes it', async () => {
    const { page } = browser;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${app.url}/hosting/${hostingId}`);
    const panelNav = page.getByRole('navigation', { name: 'Control panel' });
    await panelNav.getByRole('link', { name: 'Backups', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe(`/hosting/${hostingId}/backups`);
    await expect(panelNav.getByRole('link', { name: 'Backups' }).getAttribute('aria-current')).resolves.toBe('page');
    const section = page.getByTestId('hosting-backups');
    await section.getByText('No backups yet.').waitFor();

    // The backup's answer is held back to see the wait the page shows meanwhile.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route) => {
      if (route.request().postData()?.includes('hostingBackupCreate')) await held;
      await route.continue();
    });
    await section.getByRole('button', { name: 'Back up now' }).click();
    await expect(section.getByRole('button', { name: 'Backing up…' }).isDisabled()).resolves.toBe(true);
    await statusSays(section, 'Backing up the files and databases…');
    release();
    await statusSays(section, /^Backup of .* taken \(\d/);
    await page.unroute('**/graphql');
    const { hostingBackups } = await api('query($id: ID!) { hostingBackups(id: $id) { nodes { id } } }');
    expect(hostingBackups.nodes).toHaveLength(1);
    const row = section.getByTestId(`backup-${hostingBackups.nodes[0].id}`);
    await row.getByText('available').waitFor();

    // Its archive downloads through the session, byte for byte what REST streams to a key.
    const saved = await downloadThrough(row.getByRole('button', { name: 'Download' }));
    const viaKey = await fetch(`${app.url}/v1/hosting/${hostingId}/backups/${hostingBackups.nodes[0].id}/download`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect([viaKey.status, ...saved.subarray(0, 2)]).toEqual([200, 0x1f, 0x8b]);
    expect(saved.equals(Buffer.from(await viaKey.arrayBuffer()))).toBe(true);
    await statusSays(section, /^Downloaded the backup of /);

    // A file written after the backup is gone once the backup is restored.
    await api(
      'mutation($id: ID!) { hostingFileWrite(id: $id, path: "/public_html/after.txt", content: "later") { path } }',
    );
    await row.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    await expect(
      api('query($id: ID!) { hostingFileRead(id: $id, path: "/public_html/after.txt") { content } }'),
    ).resolves.toMatchObject({ hostingFileRead: { content: 'later' } });
    await row.getByRole('button', { name: 'Restore' }).click();
    await confirm(page, 'Restore backup');
    await statusSays(section, /^Restored the backup of /);
    const read = await gql(
      app,
      'query($id: ID!) { hostingFileRead(id: $id, path: "/public_html/after.txt") { path } }',
      {
        key,
        variables: { id: hostingId },
      },
    );
    expect(read.body.errors?.[0]?.extensions?.status, read.text).toBe(404);
    await screenshot(page, 'hosting-backups');

    await row.getByRole('button', { name: 'Delete' }).click();
    await confirm(page, 'Delete backup');
    await section.getByText('No backups yet.').waitFor({ timeout: 10_000 });
    await expect(api('query($id: ID!) { hostingBackups(id: $id) { nodes { id } } }')).resolves.toEqual({
      hostingBackups: { nodes: [] },
    });
  });

  it('creates a database (a bad name refused beside the field) and deletes it', async () => {
    const { page } = browser;
    await openTab(page, 'databases', 'Databases');
    const section = page.getByTestId('hosting-databases');
    await section.getByText('No databases yet.').waitFor();
    const name = section.getByLabel('Name');
    await name.fill('Bad-Name');
    await section.getByRole('button', { name: 'Create database' }).click();
    const error = section.getByText(
      'Database name must be 1 to 16 characters of lowercase letters, digits and underscores.',
      { exact: true },
    );
    await error.waitFor({ timeout: 10_000 });
    await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(name.getAttribute('aria-describedby')).resolves.toBe(await error.getAttribute('id'));

    await name.fill('shop');
    await section.getByRole('button', { name: 'Create database' }).click();
    await statusSays(section, /^Created \w+_shop \(user \w+_shop\)\.$/);
    await expect(name.getAttribute('aria-invalid')).resolves.toBeNull();
    const { hostingDatabases } = await api('query($id: ID!) { hostingDatabases(id: $id) { nodes { name } } }');
    expect(hostingDatabases.nodes).toHaveLength(1);
    const dbName: string = hostingDatabases.nodes[0].name;
    expect(dbName).toMatch(/_shop$/);
    const row = section.getByTestId(`database-${dbName}`);
    await row.waitFor();
    await screenshot(page, 'hosting-databases');

    await row.getByRole('button', { name: 'Delete' }).click();
    await confirm(page, 'Delete database');
    await section.getByText('No databases yet.').waitFor({ timeout: 10_000 });
    await expect(api('query($id: ID!) { hostingDatabases(id: $id) { nodes { name } } }')).resolves.toEqual({
      hostingDatabases: { nodes: [] },
    });
  });

  it('adds a cron job, refuses a bad schedule beside the field, edits and removes the job', async () => {
    const { page } = browser;
    await openTab(page, 'cron', 'Cron jobs');
    const section = page.getByTestId('hosting-cron');
    await section.getByText('No cron jobs yet.').waitFor();
    const form = section.getByTestId('cron-form');
    await form.getByLabel('Schedule').fill('*/15 * * * *');
    await form.getByLabel('Command').fill('php ~/public_html/cron.php');
    await form.getByRole('button', { name: 'Add job' }).click();
    await statusSays(section, 'Job added.');
    await expect(section.getByTestId('cron-job').textContent()).resolves.toContain('php ~/public_html/cron.php');

    const schedule = form.getByLabel('Schedule');
    await schedule.fill('61 * * * *');
    await form.getByLabel('Command').fill('echo never');
    await form.getByRole('button', { name: 'Add job' }).click();
    const error = form.getByText(/^Schedule of job 2 "61 \* \* \* \*" is not a valid cron schedule/);
    await error.waitFor({ timeout: 10_000 });
    await expect(schedule.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(schedule.getAttribute('aria-describedby')).resolves.toBe(await error.getAttribute('id'));
    await expect(section.getByTestId('cron-job').count()).resolves.toBe(1);
    await screenshot(page, 'hosting-cron-refused');

    await section.getByTestId('cron-job').getByRole('button', { name: 'Edit' }).click();
    await expect(schedule.inputValue()).resolves.toBe('*/15 * * * *');
    await expect(schedule.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await schedule.fill('@daily');
    await form.getByRole('button', { name: 'Save job' }).click();
    await statusSays(section, 'Job saved.');
    await expect(api('query($id: ID!) { hostingCron(id: $id) { jobs { schedule command } } }')).resolves.toEqual({
      hostingCron: { jobs: [{ schedule: '@daily', command: 'php ~/public_html/cron.php' }] },
    });

    await section.getByTestId('cron-job').getByRole('button', { name: 'Remove' }).click();
    await confirm(page, 'Remove job');
    await section.getByText('No cron jobs yet.').waitFor({ timeout: 10_000 });
    await expect(api('query($id: ID!) { hostingCron(id: $id) { jobs { schedule } } }')).resolves.toEqual({
      hostingCron: { jobs: [] },
    });
  });

  it('switches the PHP version among those the plan offers', async () => {
    const { page } = browser;
    await openTab(page, 'php', 'PHP');
    const section = page.getByTestId('hosting-php');
    const before = (await api('query($id: ID!) { hostingAccount(id: $id) { phpVersion } }')).hostingAccount.phpVersion;
    await expect(section.getByTestId('php-current').textContent()).resolves.toBe(before);
    const select = section.getByLabel('PHP version');
    const offered = await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(offered).toContain(before);
    const other = offered.find((v) => v !== before);
    expect(other).toBeDefined();
    // The current version is already set: the button says so instead of doing nothing.
    const button = section.getByRole('button', { name: 'Switch version' });
    await expect(button.isDisabled()).resolves.toBe(true);
    await select.selectOption(other as string);
    await button.click();
    await statusSays(section, `The site now runs PHP ${other}.`);
    await expect(section.getByTestId('php-current').textContent()).resolves.toBe(other);
    // The account's facts above the panel follow, without a reload.
    await page
      .locator('dl.facts dt', { hasText: /^PHP$/ })
      .locator('xpath=following-sibling::dd[1]')
      .getByText(other as string, { exact: true })
      .waitFor();
    await expect(api('query($id: ID!) { hostingAccount(id: $id) { phpVersion } }')).resolves.toEqual({
      hostingAccount: { phpVersion: other },
    });
  });

  it('shows the firewall and opens access to its log', async () => {
    const { page } = browser;
    await openTab(page, 'firewall', 'Firewall');
    const section = page.getByTestId('hosting-firewall');
    await expect(section.getByTestId('waf-log-access').textContent()).resolves.toBe('Closed');
    await expect(section.textContent()).resolves.toContain('OWASP CRS 4');
    await section.getByRole('button', { name: 'Request log access' }).click();
    await statusSays(section, 'Log access granted.');
    await section
      .getByTestId('waf-log-access')
      .getByText(/^Open until/)
      .waitFor();
    const { hostingWafAccess } = await api('query($id: ID!) { hostingWafAccess(id: $id) { active expiresAt } }');
    expect(hostingWafAccess.active).toBe(true);
    await expect(section.getByTestId('waf-log-access').locator('time').getAttribute('datetime')).resolves.toBe(
      hostingWafAccess.expiresAt,
    );
    await section.getByRole('button', { name: 'Extend log access' }).waitFor();
  });

  it('shows the access log newest first in monospace, and the error log', async () => {
    const { page } = browser;
    // Ten minutes of simulated traffic fill the access log.
    const tick = await app.admin('POST', '/admin/clock/advance', { seconds: 600 });
    expect(tick.status, tick.text).toBe(200);
    await openTab(page, 'logs', 'Logs');
    const section = page.getByTestId('hosting-logs');
    const lines = section.getByTestId('log-lines').locator('li');
    await lines.first().waitFor();
    const { hostingLogs } = await api('query($id: ID!) { hostingLogs(id: $id, kind: "access", lines: 200) { lines } }');
    expect(hostingLogs.lines.length).toBeGreaterThan(1);
    await expect(lines.count()).resolves.toBe(hostingLogs.lines.length);
    await expect(lines.first().textContent()).resolves.toBe(hostingLogs.lines.at(-1));
    await expect(lines.last().textContent()).resolves.toBe(hostingLogs.lines[0]);
    const font = await lines.first().evaluate((li) => getComputedStyle(li).fontFamily);
    expect(font).toMatch(/mono|Menlo|Consolas/i);

    await section.getByLabel('Log', { exact: true }).selectOption('error');
    await section.getByText(/virtual host .* ready/).waitFor({ timeout: 10_000 });
    await screenshot(page, 'hosting-logs');
  });

  it('deploys a local repository, pulls a new commit, turns push-to-deploy on and off, disconnects', async () => {
    const { page } = browser;
    const bare = path.join(work, 'site.git');
    const clone = path.join(work, 'site');
    git(work, 'init', '--bare', bare);
    git(work, 'clone', bare, clone);
    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>from git</h1>');
    git(clone, 'add', '.');
    git(clone, 'commit', '-m', 'first');
    git(clone, 'push', 'origin', 'HEAD:main');

    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.goto(`${app.url}/hosting/${hostingId}`);
    await clickTab(page, 'Git deploy');
    const status = page.getByTestId('hosting-git');
    await status.getByTestId('git-status').getByText('not connected', { exact: true }).waitFor();
    await expect(status.getByRole('button', { name: 'Pull' }).isDisabled()).resolves.toBe(true);

    // The deploy key, copied to the clipboard with its button.
    const keySection = page.getByTestId('git-deploy-key');
    const { hostingGitDeployKey } = await api('query($id: ID!) { hostingGitDeployKey(id: $id) { publicKey } }');
    await expect(keySection.getByTestId('deploy-public-key').textContent()).resolves.toBe(
      hostingGitDeployKey.publicKey,
    );
    await keySection.getByRole('button', { name: 'Copy key' }).click();
    await keySection.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(hostingGitDeployKey.publicKey);

    const form = page.getByTestId('git-deploy');
    const repo = form.getByLabel('Repository URL');
    await repo.fill('https://github.com/owner/site.git');
    await form.getByRole('button', { name: 'Deploy' }).click();
    const error = form.getByText(/^Repository URL must be an SSH repository address/);
    await error.waitFor({ timeout: 10_000 });
    await expect(repo.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(repo.getAttribute('aria-describedby')).resolves.toBe(await error.getAttribute('id'));

    await repo.fill(bare);
    await form.getByLabel('Branch').fill('main');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await statusSays(form, /^Deployed main at [0-9a-f]{10}\.$/);
    await status.getByTestId('git-status').getByText('deployed').waitFor({ timeout: 10_000 });
    await expect(status.getByTestId('git-commit').textContent()).resolves.toContain('first');
    await expect(
      api('query($id: ID!) { hostingFileRead(id: $id, path: "/public_html/index.html") { content } }'),
    ).resolves.toEqual({ hostingFileRead: { content: '<h1>from git</h1>' } });

    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>from git, again</h1>');
    git(clone, 'commit', '-am', 'second');
    git(clone, 'push', 'origin', 'HEAD:main');
    await status.getByRole('button', { name: 'Pull' }).click();
    await statusSays(status, 'Pulled and published the branch.');
    await status.getByTestId('git-commit').getByText('second').waitFor({ timeout: 10_000 });
    await expect(status.getByTestId('git-commit').locator('[title]').getAttribute('title')).resolves.toBe(
      git(clone, 'rev-parse', 'HEAD'),
    );

    // Push-to-deploy: the URL and the secret once, then only the URL.
    const hook = page.getByTestId('git-webhook');
    await hook.getByRole('button', { name: 'Turn on push-to-deploy' }).click();
    const secretBox = hook.getByTestId('webhook-secret');
    await secretBox.waitFor({ timeout: 10_000 });
    const { hostingGitWebhook } = await api('query($id: ID!) { hostingGitWebhook(id: $id) { url secret } }');
    expect(hostingGitWebhook.secret).toMatch(/^gdh_/);
    await expect(secretBox.textContent()).resolves.toContain(hostingGitWebhook.secret);
    await hook.getByTestId('webhook-url').getByText(hostingGitWebhook.url).waitFor({ timeout: 10_000 });
    // How to sign a call: the scheme and a shell example with this URL and secret.
    const example = hook.getByTestId('webhook-example');
    await example.getByText('How to sign a call').click();
    await expect(example.textContent()).resolves.toMatch(/X-Service-Delivery[\s\S]*openssl dgst -sha256 -hmac/);
    await expect(example.locator('code').textContent()).resolves.toContain(
      `curl -sS -X POST '${hostingGitWebhook.url}'`,
    );
    await screenshot(page, 'hosting-git');
    await page.reload();
    await hook.getByTestId('webhook-url').waitFor();
    await expect(secretBox.count()).resolves.toBe(0);
    await expect(page.getByText(hostingGitWebhook.secret).count()).resolves.toBe(0);
    await hook.getByRole('button', { name: 'Turn off push-to-deploy' }).click();
    await confirm(page, 'Turn off');
    await hook.getByText(/^Off: pushes/).waitFor({ timeout: 10_000 });
    await expect(api('query($id: ID!) { hostingGitWebhook(id: $id) { enabled } }')).resolves.toEqual({
      hostingGitWebhook: { enabled: false },
    });

    await status.getByRole('button', { name: 'Disconnect' }).click();
    await confirm(page, 'Disconnect');
    await status.getByTestId('git-status').getByText('not connected', { exact: true }).waitFor({ timeout: 10_000 });
    await expect(
      api('query($id: ID!) { hostingFileRead(id: $id, path: "/public_html/index.html") { content } }'),
    ).resolves.toEqual({ hostingFileRead: { content: '<h1>from git, again</h1>' } });
  });

  it('protects a directory (refusals beside the fields) and removes the protection', async () => {
    const { page } = browser;
    await renewSession(browser, app.url, holder);
    await api('mutation($id: ID!) { hostingFileMkdir(id: $id, path: "/public_html/admin") { path } }');
    await page.goto(`${app.url}/hosting/${hostingId}`);
    await clickTab(page, 'Protected directories');
    const section = page.getByTestId('hosting-protected-dirs');
    await section.getByText('No protected directories yet.').waitFor();
    const form = section.getByTestId('protected-form');
    await form.getByLabel('Directory').fill('/public_html/nope');
    await form.getByLabel('User name').fill('ada');
    const password = form.getByLabel('Password');
    await password.fill('short');
    await form.getByRole('button', { name: 'Protect directory' }).click();
    await form.getByText('Password must be 8 to 72 bytes.').waitFor({ timeout: 10_000 });
    await expect(password.getAttribute('aria-invalid')).resolves.toBe('true');
    await password.fill('long enough');
    await form.getByRole('button', { name: 'Protect directory' }).click();
    const pathError = form.getByText(/^Path "\/public_html\/nope" does not exist/);
    await pathError.waitFor({ timeout: 10_000 });
    await expect(form.getByLabel('Directory').getAttribute('aria-describedby')).resolves.toBe(
      await pathError.getAttribute('id'),
    );
    await form.getByLabel('Directory').fill('/public_html/admin');
    await form.getByRole('button', { name: 'Protect directory' }).click();
    await statusSays(form, "/public_html/admin asks for ada's password.");
    const row = section.getByTestId('protected-/public_html/admin');
    await row.getByText('ada').waitFor();
    await expect(password.inputValue()).resolves.toBe('');
    await row.getByRole('button', { name: 'Unprotect' }).click();
    await confirm(page, 'Remove protection');
    await section.getByText('No protected directories yet.').waitFor({ timeout: 10_000 });
    await expect(api('query($id: ID!) { hostingProtectedDirs(id: $id) { nodes { path } } }')).resolves.toEqual({
      hostingProtectedDirs: { nodes: [] },
    });
  });

  it('fits every tab into a phone without sideways scrolling, with no serious axe violation at either size', async () => {
    const { page } = browser;
    await renewSession(browser, app.url, holder);
    // One load per size, then the tab links: fewer requests (the session may make 600 a minute).
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      await page.goto(`${app.url}/hosting/${hostingId}`);
      const panelNav = page.getByRole('navigation', { name: 'Control panel' });
      for (const [slug, label] of PANEL_TABS) {
        await panelNav.getByRole('link', { name: label, exact: true }).click();
        await panelNav.locator('[aria-current="page"]').getByText(label, { exact: true }).waitFor();
        expect(new URL(page.url()).pathname).toBe(`/hosting/${hostingId}/${slug}`);
        await page.getByText('Loading…').first().waitFor({ state: 'detached' });
        const width = await pageWidth(page);
        expect(width.scroll, `${slug} at ${size.width} px`).toBeLessThanOrEqual(width.window);
        expect(await overflowingCards(page), `${slug} at ${size.width} px`).toEqual([]);
        expect(await axeViolations(page), `${slug} at ${size.width} px`).toEqual([]);
        if (size === PHONE) await screenshot(page, `hosting-${slug}-phone`);
      }
    }
  }, 120_000);

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
