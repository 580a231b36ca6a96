import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startBuiltApp, type BuiltApp } from './built-app.ts';
import { accountHolder, type Holder } from './oauth.ts';
import { ROOT } from './process.ts';
import { runningServer } from './servers.ts';

/** Debian's chromium; the browser tests skip (with the reason printed) when it is absent. */
const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install -y chromium; .ci/run installs it)`);

const ARTIFACTS = path.join(ROOT, 'test/artifacts');

/** Builds the dashboard if dist/dashboard is missing (npm ci builds it; a bare checkout may not have). */
export function ensureDashboardBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist/dashboard/index.html'))) {
    execFileSync(process.execPath, ['scripts/build-dashboard.mjs'], { cwd: ROOT, stdio: 'inherit' });
  }
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile; confirm() dialogs are accepted. */
export async function launchBrowser(opts: { javaScriptEnabled?: boolean } = {}): Promise<Browser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 860 },
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('dialog', (d) => void d.accept());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The two sizes every page is tried at: a laptop, and a phone (iPhone 12–15). */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** What a person sees as sideways scrolling: the page wider than the window. */
export function pageWidth(page: Page) {
  return page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, window: window.innerWidth }));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Signs in through the dashboard's form. */
export async function browserSignIn(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
  pathAfter = '/',
): Promise<void> {
  await page.goto(`${baseUrl}${pathAfter}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('account-email').waitFor();
}

/** Closes a test file's browser and stops its app; either is missing when its beforeAll failed early. */
export async function closeConsole(browser: Browser | undefined, app: { stop(): Promise<void> } | undefined) {
  await browser?.close();
  await app?.stop();
}

/**
 * Signs in as the holder and waits until the console's live updates are connected; the page's
 * uncaught errors from then on go into `pageErrors`, which a test file asserts empty at its end.
 */
export async function signInLive(
  browser: Browser,
  baseUrl: string,
  holder: { email: string; password: string },
  pageErrors: string[],
): Promise<void> {
  browser.page.on('pageerror', (e) => pageErrors.push(e.message));
  await browserSignIn(browser.page, baseUrl, holder.email, holder.password);
  await browser.page.getByTestId('live-status').getByText('live').waitFor();
}

/**
 * Signs out (the cookie dropped) and in again: a new session, whose 600 requests a minute start
 * afresh. For a test that does in seconds what a person does in many minutes.
 */
export async function renewSession(browser: Browser, baseUrl: string, holder: { email: string; password: string }) {
  await browser.context.clearCookies();
  await browserSignIn(browser.page, baseUrl, holder.email, holder.password);
  await browser.page.getByTestId('live-status').getByText('live').waitFor();
}

/**
 * The dashboard's test bed: the built server (private webhook targets allowed), an account holder
 * with a password, and their running server "web-1".
 */
export async function dashboardWithServer(): Promise<{ app: BuiltApp; holder: Holder; serverId: string }> {
  const app = await startBuiltApp({ webhookAllowPrivate: true });
  const holder = await accountHolder(app);
  const serverId = await runningServer(app, { accountId: holder.accountId, key: '', keyId: '' }, { label: 'web-1' });
  return { app, holder, serverId };
}

/** axe-core's script, from node_modules: injected into the page under test, never fetched from a CDN. */
const AXE_SOURCE = fs.readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/**
 * The serious and critical accessibility violations axe-core finds on the page as it stands,
 * one line each (rule, impact and the first offending elements), for an `toEqual([])`. A
 * contrast failure also names the colours and ratio axe measured, so a failure explains itself.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type Check = { data?: { fgColor?: string; bgColor?: string; contrastRatio?: number } | null };
    type AxeViolation = { id: string; impact: string | null; nodes: { target: unknown[]; any: Check[] }[] };
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => {
        const measured = n.any.find((c) => c.data?.contrastRatio !== undefined)?.data;
        const colours = measured ? ` ${measured.fgColor} on ${measured.bgColor} = ${measured.contrastRatio}` : '';
        return JSON.stringify(n.target) + colours;
      }),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}
