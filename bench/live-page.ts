import type { Page } from 'playwright-core';
import { mintApiKey } from '../src/modules/auth/service.ts';
import { createAccount } from '../src/modules/account/service.ts';
import { browserSignIn, hasChromium, launchBrowser } from '../test/helpers/browser.ts';
import { ensureBuilt } from '../test/helpers/process.ts';
import { startReceiver } from '../test/helpers/webhooks.ts';
import { percentile, sleep, startBenchApp, type BenchApp } from './lib.ts';
import type { Figure, Sizes } from './scenarios.ts';

// Scenario 10: from the API's change to the open page showing it, in Chromium.

const PASSWORD = 'correct horse battery staple';
/** How long one round may take before the scenario gives up on it. */
const ROUND_LIMIT_MS = 30_000;

/**
 * Starts watching the page: the first time (wall clock, ms) each text of the elements `selector`
 * names appears, in `window.__seenAt`, from now on.
 */
async function watchTexts(page: Page, selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const w = window as unknown as { __seenAt: Record<string, number>; __observer?: MutationObserver };
    w.__observer?.disconnect();
    w.__seenAt = {};
    // An anonymous callback: a named function here would need the bundler's helper in the page.
    w.__observer = new MutationObserver(() => {
      for (const el of document.querySelectorAll(sel)) w.__seenAt[el.textContent?.trim() ?? ''] ??= Date.now();
    });
    w.__observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, selector);
}

/** When the watched elements first read `text` (wall clock, ms), waiting for it. */
async function seenAt(page: Page, text: string): Promise<number> {
  const handle = await page.waitForFunction(
    (t) => (window as unknown as { __seenAt: Record<string, number> }).__seenAt[t],
    text,
    { timeout: ROUND_LIMIT_MS, polling: 'raf' },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * Waits until the open page's live-change subscription is in place on the server. The console
 * shows `live` once its socket is acknowledged; graphql-ws confirms no subscription, so a change
 * made in the moment between the two would reach no one and the round would wait for nothing.
 */
async function untilSubscribed(app: BenchApp): Promise<void> {
  for (const started = Date.now(); app.running.app.liveChanges.listenerCount() < 1; await sleep(5))
    if (Date.now() - started > ROUND_LIMIT_MS) throw new Error('the page never subscribed to live changes');
}

/**
 * The wall-clock time a row was written, from its `updatedAt`: every write takes the simulated
 * clock's time (src/db/timestamps.ts), which runs at the wall clock's pace from its offset. The
 * write is inside the change's transaction, so this is at or just before its commit: the
 * latency measured from it is, if anything, a little long.
 */
function wallTimeOf(app: BenchApp, updatedAt: Date): number {
  const offset = app.running.app.clock.now().getTime() - Date.now();
  return updatedAt.getTime() - offset;
}

/**
 * Scenario 10: the console's live updates, end to end. The app in this process (the dashboard
 * built first, as `npm ci` leaves it), a signed-in Chromium tab on the page that shows the
 * resource, and each round a change made by another client: the time from the change's write
 * (the row's `updatedAt`, on the wall clock) to the page first showing the new state (a
 * MutationObserver in the page, on the same machine's wall clock). Three paths: a reboot
 * settling (a live change, `server.status.changed`), a redelivery's attempt
 * (`webhook.delivery.changed`), and a server inside a pool finishing its build (an account
 * event, `server.created`, through the relay).
 */
export async function livePage(sizes: Sizes): Promise<Figure[]> {
  if (!hasChromium) return [];
  await ensureBuilt();
  // Due work runs when a round says (as the one-second ticker would): a change must not land
  // before the round starts watching for it.
  const app = await startBenchApp({ backgroundJobs: false });
  const receiver = await startReceiver();
  const browser = await launchBrowser();
  try {
    const prisma = app.running.app.prisma;
    const now = () => app.running.app.clock.now();
    const account = await createAccount(
      prisma,
      {
        email: `live-${Date.now()}@example.com`,
        name: 'Live',
        country: 'DE',
        walletBalanceUsdCents: 1_000_000,
        password: PASSWORD,
      },
      now(),
    );
    const { key } = await mintApiKey(prisma, account.id, {
      name: 'other client',
      scopes: ['servers:read', 'servers:write', 'webhooks:read', 'webhooks:write'],
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${app.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${method} ${path} → ${r.status}: ${await r.text()}`);
      return r.json();
    };
    const advance = async (seconds: number) => {
      const r = await fetch(`${app.url}/admin/clock/advance`, {
        method: 'POST',
        headers: { Authorization: 'Bearer bench-admin', 'Content-Type': 'application/json' },
        body: JSON.stringify({ seconds }),
      });
      if (!r.ok) throw new Error(`advance → ${r.status}`);
    };
    const order = await fetch(`${app.url}/admin/accounts/${account.id}/servers`, {
      method: 'POST',
      headers: { Authorization: 'Bearer bench-admin', 'Content-Type': 'application/json' },
      body: JSON.stringify({ productId: 'std-2c-4g-50', label: 'web-1', os: 'linux', osTemplate: 'ubuntu-24.04' }),
    });
    const serverId = ((await order.json()) as { id: string }).id;
    await advance(180);

    const { page } = browser;
    await browserSignIn(page, app.url, account.email, PASSWORD, `/servers/${serverId}`);
    await page.getByTestId('live-status').getByText('live').waitFor();
    await untilSubscribed(app);

    // A reboot settling: the server page.
    const reboot: number[] = [];
    for (let i = 0; i < sizes.liveRounds; i++) {
      await call('POST', `/v1/servers/${serverId}/power/reboot`);
      await page.getByTestId('server-status').getByText('rebooting').waitFor({ timeout: ROUND_LIMIT_MS });
      await watchTexts(page, '[data-testid="server-status"]');
      await advance(61);
      const row = await prisma.server.findUniqueOrThrow({ where: { id: serverId }, select: { updatedAt: true } });
      reboot.push((await seenAt(page, 'running')) - wallTimeOf(app, row.updatedAt));
    }

    // A server built inside a pool: the pool page.
    const pool = (await call('POST', '/v1/pools', {
      productId: 'pool-fra1',
      label: 'bench-pool',
      vcpu: 64,
      ram2gb: 64,
      disk100: 20,
      ip16: 2,
    })) as { id: string };
    await page.goto(`${app.url}/pools/${pool.id}`);
    await page.getByTestId('live-status').getByText('live').waitFor();
    await untilSubscribed(app);
    const built: number[] = [];
    for (let i = 0; i < sizes.liveRounds; i++) {
      const node = (await call('POST', `/v1/pools/${pool.id}/servers`, {
        productId: 'std-1c-2g-50',
        label: `node-${i}`,
        os: 'linux',
        osTemplate: 'debian-12',
        ipCount: 0,
      })) as { id: string };
      const status = `[data-testid="pool-server-${node.id}"] [data-testid="server-status"]`;
      await page.locator(status).getByText('provisioning').waitFor({ timeout: ROUND_LIMIT_MS });
      await watchTexts(page, status);
      await advance(180);
      const row = await prisma.server.findUniqueOrThrow({ where: { id: node.id }, select: { updatedAt: true } });
      built.push((await seenAt(page, 'running')) - wallTimeOf(app, row.updatedAt));
    }

    // A redelivery's attempt: the webhook's delivery log. The receiver alternates refusing and
    // answering, so each attempt ends in a state the log did not show before.
    const hook = (await call('POST', '/v1/webhooks', {
      url: `${receiver.url}/bench`,
      events: ['server.power.changed'],
    })) as { id: string };
    await call('POST', `/v1/servers/${serverId}/power/stop`);
    await app.running.app.runDueWork();
    await page.goto(`${app.url}/webhooks`);
    await page.getByTestId('live-status').getByText('live').waitFor();
    await untilSubscribed(app);
    const statusCell = '[data-testid="delivery"] [data-testid="delivery-status"]';
    await page.locator(statusCell).getByText('succeeded').waitFor({ timeout: ROUND_LIMIT_MS });
    const [delivery] = await prisma.webhookDelivery.findMany({ where: { webhookId: hook.id }, select: { id: true } });
    const attempted: number[] = [];
    for (let i = 0; i < sizes.liveRounds; i++) {
      const outcome = i % 2 ? 'succeeded' : 'failed';
      receiver.respond = () => (outcome === 'succeeded' ? 200 : 503);
      await call('POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
      await page.locator(statusCell).getByText('pending').waitFor({ timeout: ROUND_LIMIT_MS });
      await watchTexts(page, statusCell);
      // What the one-second ticker would do.
      await app.running.app.runDueWork();
      const row = await prisma.webhookDelivery.findUniqueOrThrow({
        where: { id: delivery.id },
        select: { updatedAt: true },
      });
      attempted.push((await seenAt(page, outcome)) - wallTimeOf(app, row.updatedAt));
    }
    await sleep(100);

    const figures = (name: string, ms: number[]): Figure[] => [
      { scenario: '10 live page', metric: `${name}: change → page p50`, value: percentile(ms, 50), unit: 'ms' },
      {
        scenario: '10 live page',
        metric: `${name}: change → page max of ${ms.length}`,
        value: Math.max(...ms),
        unit: 'ms',
        budget: '≤ 1,000',
        pass: ms.length === sizes.liveRounds && Math.max(...ms) <= 1000,
      },
    ];
    return [
      ...figures('reboot settles (live change)', reboot),
      ...figures('pool server built (event)', built),
      ...figures('redelivery attempted (live change)', attempted),
    ];
  } finally {
    await browser.close();
    await receiver.close();
    await app.stop();
  }
}
