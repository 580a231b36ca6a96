// `npm run screenshots`: pictures of every console page, at a laptop's size and a phone's, into
// docs/console/ (linked from the README). It starts the app as `npm start` does, on a fresh data
// directory (so the demo account exists), signs in as the demo customer in Debian's Chromium and
// walks the console: the navigation's pages, then every page those link to, one of each kind (one
// server page, one hosting tab of each name …). A new page is pictured as soon as a link leads there.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(ROOT, 'docs/console');
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** Pages of one kind: the same path once its ids (anything with a digit) are set aside. */
const kindOf = (p: string) => p.replace(/\/[^/]*\d[^/]*/g, '/:id');
/** The picture's name: the page's kind, e.g. "hosting-id-files", "overview" for "/". */
const nameOf = (p: string) => kindOf(p).replace(/^\//, '').replace(/[/:]+/g, '-') || 'overview';

async function startApp(): Promise<{ url: string; dataDir: string; stop(): void }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-screens-'));
  const child = spawn(process.execPath, ['bin/svc.js', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m && fs.existsSync(path.join(dataDir, 'demo-credentials.json'))) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the app stopped (exit ${code}) before it listened`)));
  });
  return { url, dataDir, stop: () => child.kill('SIGTERM') };
}

/** Same-origin links on the page (header, navigation and main), as paths. */
const linksOn = (page: Page, origin: string) =>
  page
    .locator('header a[href], nav a[href], main a[href]')
    .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))
    .then((hrefs) => hrefs.filter((h) => h.startsWith(origin)).map((h) => new URL(h).pathname));

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page
    .getByText('Loading…')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

async function main(): Promise<void> {
  const app = await startApp();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const creds = JSON.parse(fs.readFileSync(path.join(app.dataDir, 'demo-credentials.json'), 'utf8'));
    const page = await browser.newPage({ viewport: SIZES.desktop });
    // A session spends 600 requests a minute (SESSION_REQUESTS_PER_MINUTE); loading page after page in
    // a few seconds is far more than a person does, so a new session every few pages.
    let loads = 0;
    const signIn = async () => {
      await page.context().clearCookies();
      await page.goto(`${app.url}/sign-in`);
      await page.getByLabel('E-mail').fill(creds.email);
      await page.getByLabel('Password').fill(creds.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('account-email').waitFor();
      await settle(page);
    };
    await signIn();

    // Breadth first from the overview: the navigation's pages, then what they link to.
    const queue = ['/'];
    const seen = new Set([kindOf('/'), '/sign-in', '/oauth/device']);
    fs.mkdirSync(OUT, { recursive: true });
    for (const f of fs.readdirSync(OUT)) if (f.endsWith('.png')) fs.rmSync(path.join(OUT, f));
    const shot: string[] = [];
    while (queue.length > 0) {
      const at = queue.shift() as string;
      for (const [size, viewport] of Object.entries(SIZES)) {
        if (++loads % 12 === 0) await signIn();
        await page.setViewportSize(viewport);
        await page.goto(`${app.url}${at}`);
        await settle(page);
        await page.screenshot({ path: path.join(OUT, `${nameOf(at)}-${size}.png`), fullPage: size === 'desktop' });
      }
      shot.push(at);
      for (const next of await linksOn(page, app.url)) {
        if (seen.has(kindOf(next)) || seen.has(next)) continue;
        seen.add(kindOf(next));
        queue.push(next);
      }
    }
    // The index the README links to: each page's kind, with its two pictures.
    const rows = shot.map((at) => {
      const name = nameOf(at);
      return `| \`${kindOf(at)}\` | [desktop](${name}-desktop.png) | [phone](${name}-phone.png) |`;
    });
    fs.writeFileSync(
      path.join(OUT, 'README.md'),
      [
        '# The console, page by page',
        '',
        'Made by `npm run screenshots` from the demo account (1280 × 800, the whole page; 390 × 844, the',
        'first screen). Run it again after changing a page.',
        '',
        '| Page | 1280 px | 390 px |',
        '|---|---|---|',
        ...rows,
        '',
      ].join('\n'),
    );
    console.log(`${shot.length} pages, two sizes each, in ${path.relative(ROOT, OUT)}/:\n  ${shot.join('\n  ')}`);
  } finally {
    await browser.close();
    app.stop();
    fs.rmSync(app.dataDir, { recursive: true, force: true });
  }
}

await main();
