import type { Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAs, type BuiltApp } from '../helpers/built-app.ts';
import {
  closeConsole,
  dashboardWithServer,
  hasChromium,
  launchBrowser,
  renewSession,
  signInLive,
  type Browser,
} from '../helpers/browser.ts';
import type { Holder } from '../helpers/oauth.ts';
import { advance } from '../helpers/servers.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

/**
 * Every state the open page shows arrives as it happens: a reboot, a plan change and a revert
 * settling, a server ordered inside a pool finishing, a redelivery's attempt. The page never
 * reloads and no longer polls for them (the server page reads again by itself only for its
 * usage charts, every 30 s): each wait here is far shorter than that, and the page's socket must
 * have carried the live change that moved it.
 */
describe.skipIf(!hasChromium)('the console follows every change live, in Chromium', () => {
  let app: BuiltApp;
  let holder: Holder;
  let serverId: string;
  let browser: Browser;
  let receiver: Receiver;
  const pageErrors: string[] = [];
  /** Full loads of the document: the page must update in place. */
  const loads: string[] = [];
  /** The `liveChanges` items the page's graphql-ws socket received. */
  const changes: { type: string; data: Record<string, unknown> }[] = [];

  /** Well under the server page's 30-second usage poll, and long enough for a busy machine. */
  const LIVE_WAIT_MS = 10_000;

  const writeKey = async (scopes: string[]) =>
    (await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, { scopes })).body.key as string;

  /** Waits until the page's socket carried the live change `type` with `data`. */
  const heard = (type: string, data: Record<string, unknown>) =>
    expect
      .poll(() => changes.some((c) => c.type === type && expect.objectContaining(data).asymmetricMatch(c.data)), {
        timeout: LIVE_WAIT_MS,
      })
      .toBe(true);

  const serverStatusIs = (page: Page, status: string) =>
    page.getByTestId('server-status').getByText(status, { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });

  /** The server as another client of the account reads it now. */
  const apiStatus = async (id: string) => (await readAs(app, holder.accountId, `/servers/${id}`)).status;

  beforeAll(async () => {
    ({ app, holder, serverId } = await dashboardWithServer());
    receiver = await startReceiver();
    browser = await launchBrowser();
    browser.page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const message = JSON.parse(String(payload));
        if (message.type === 'next' && message.payload?.data?.liveChanges)
          changes.push(message.payload.data.liveChanges);
      }),
    );
    await signInLive(browser, app.url, holder, pageErrors);
    browser.page.on('framenavigated', (f) => f === browser.page.mainFrame() && loads.push(f.url()));
  });
  afterAll(async () => {
    await receiver?.close();
    await closeConsole(browser, app);
  });

  /**
   * Opens a console page (a load of its own, before the change under test) and waits until its
   * live updates are connected; the loads counted from then on must stay none.
   */
  const open = async (page: Page, path: string, heading: RegExp) => {
    await page.goto(`${app.url}${path}`);
    await page.getByTestId('live-status').getByText('live').waitFor();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    loads.length = 0;
  };

  it('a reboot turns back to running on the open server page when the API says so', async () => {
    const { page } = browser;
    await open(page, `/servers/${serverId}`, /web-1/);
    await serverStatusIs(page, 'running');
    await page.getByRole('button', { name: 'Reboot', exact: true }).click();
    await page.getByRole('dialog', { name: 'Reboot web-1?' }).getByRole('button', { name: 'Reboot server' }).click();
    await serverStatusIs(page, 'rebooting');
    await advance(app, 61);
    expect(await apiStatus(serverId)).toBe('running');
    await serverStatusIs(page, 'running');
    await heard('server.status.changed', { serverId, status: 'running' });
    await expect(page.getByRole('button', { name: 'Reboot', exact: true }).isDisabled()).resolves.toBe(false);
    expect(loads).toEqual([]);
  });

  it('a plan change reboots the server; the page shows the new plan, then running', async () => {
    const { page } = browser;
    const plan = page.getByTestId('plan');
    await plan.getByRole('radio', { name: /\$24\.00 per month/ }).check();
    await plan.getByRole('button', { name: 'Change plan' }).click();
    await page
      .getByRole('dialog', { name: /^Change web-1 to / })
      .getByRole('button', { name: 'Change plan' })
      .click();
    await page
      .getByTestId('server-plan')
      .getByText(/^std-4c-8g-50/)
      .waitFor({ timeout: LIVE_WAIT_MS });
    await serverStatusIs(page, 'rebooting');
    const before = changes.length;
    await advance(app, 61);
    expect(await apiStatus(serverId)).toBe('running');
    await serverStatusIs(page, 'running');
    await expect.poll(() => changes.length, { timeout: LIVE_WAIT_MS }).toBeGreaterThan(before);
    expect(changes.at(-1)).toEqual({ type: 'server.status.changed', data: { serverId, status: 'running' } });
    expect(loads).toEqual([]);
  });

  it('a snapshot revert: restoring, then running again on the open page', async () => {
    const { page } = browser;
    const section = page.getByTestId('snapshots');
    await section.getByLabel('Snapshot name').fill('before-live');
    await section.getByRole('button', { name: 'Take snapshot' }).click();
    const row = section.getByTestId('snapshot-before-live');
    await row.getByText('available', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });
    await row.getByRole('button', { name: 'Revert' }).click();
    await page
      .getByRole('dialog', { name: 'Revert web-1 to “before-live”?' })
      .getByRole('button', { name: 'Revert disk' })
      .click();
    await serverStatusIs(page, 'restoring');
    const before = changes.length;
    await advance(app, 121);
    expect(await apiStatus(serverId)).toBe('running');
    await serverStatusIs(page, 'running');
    await expect.poll(() => changes.length, { timeout: LIVE_WAIT_MS }).toBeGreaterThan(before);
    expect(changes.at(-1)).toEqual({ type: 'server.status.changed', data: { serverId, status: 'running' } });
    await expect(section.getByRole('button', { name: 'Take snapshot' }).isDisabled()).resolves.toBe(false);
    expect(loads).toEqual([]);
  });

  it('a server ordered inside a pool turns running on the open pool page; one ordered elsewhere appears there too', async () => {
    const { page } = browser;
    await renewSession(browser, app.url, holder);
    const key = await writeKey(['servers:read', 'servers:write']);
    const bought = await app.call('POST', '/v1/pools', {
      key,
      body: { productId: 'pool-fra1', label: 'live-pool', vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 },
    });
    expect(bought.status, bought.text).toBe(200);
    const poolId = bought.body.id as string;
    await open(page, `/pools/${poolId}`, /live-pool/);

    const form = page.getByTestId('pool-server-create');
    await form.getByLabel('Server label').fill('node-live');
    await form.getByLabel('System').selectOption({ label: 'Debian 12' });
    await form.getByRole('button', { name: 'Create server' }).click();
    await form.getByText('node-live is being created').waitFor();
    const [node] = (await readAs(app, holder.accountId, '/servers')).data.filter(
      (s: { poolId?: string; label: string }) => s.poolId === poolId,
    );
    const row = page.getByTestId(`pool-server-${node.id}`);
    await row.getByTestId('server-status').getByText('provisioning').waitFor({ timeout: LIVE_WAIT_MS });
    await advance(app, 180);
    expect(await apiStatus(node.id)).toBe('running');
    await row.getByTestId('server-status').getByText('running', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });

    // A private-only server ordered by another client takes no address (no pool event): its
    // live change brings it onto the open page, and then its running.
    const other = await app.call('POST', `/v1/pools/${poolId}/servers`, {
      key,
      body: { productId: 'std-1c-2g-50', label: 'node-private', os: 'linux', osTemplate: 'debian-12', ipCount: 0 },
    });
    expect(other.status, other.text).toBe(200);
    const otherRow = page.getByTestId(`pool-server-${other.body.id}`);
    await otherRow.getByTestId('server-status').getByText('provisioning').waitFor({ timeout: LIVE_WAIT_MS });
    await heard('server.status.changed', { serverId: other.body.id, status: 'provisioning' });
    await advance(app, 180);
    await otherRow
      .getByTestId('server-status')
      .getByText('running', { exact: true })
      .waitFor({ timeout: LIVE_WAIT_MS });
    expect(loads).toEqual([]);
  });

  it('Redeliver: the delivery log shows the new attempt and its outcome without a reload', async () => {
    const { page } = browser;
    await renewSession(browser, app.url, holder);
    const key = await writeKey(['webhooks:read', 'webhooks:write', 'servers:read', 'servers:write']);
    const hook = await app.call('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/live`, events: ['server.power.changed'] },
    });
    expect(hook.status, hook.text).toBe(200);
    expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key })).status).toBe(200);
    await app.runDueWork();
    expect(receiver.received.filter((r) => r.path === '/live')).toHaveLength(1);

    await open(page, '/webhooks', /^Webhooks$/);
    const delivery = page.getByTestId('delivery').filter({ hasText: 'server.power.changed' });
    await delivery.getByTestId('delivery-status').getByText('succeeded').waitFor({ timeout: LIVE_WAIT_MS });
    await delivery.getByText('1 / 16').waitFor();

    // The receiver now refuses: the redelivery is one more attempt, which fails.
    receiver.respond = () => 503;
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Redelivery queued.').waitFor();
    await delivery.getByTestId('delivery-status').getByText('pending').waitFor({ timeout: LIVE_WAIT_MS });
    await delivery.getByText('1 / 2').waitFor();
    await app.runDueWork();
    expect(receiver.received.filter((r) => r.path === '/live')).toHaveLength(2);
    await delivery.getByTestId('delivery-status').getByText('failed').waitFor({ timeout: LIVE_WAIT_MS });
    await delivery.getByText('2 / 2').waitFor();
    await expect(delivery.textContent()).resolves.toContain('503');
    await heard('webhook.delivery.changed', { webhookId: hook.body.id, status: 'failed', attemptCount: 2 });

    // Once more, answered: succeeded, three attempts.
    receiver.respond = () => 200;
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await delivery.getByTestId('delivery-status').getByText('pending').waitFor({ timeout: LIVE_WAIT_MS });
    await app.runDueWork();
    await delivery.getByTestId('delivery-status').getByText('succeeded').waitFor({ timeout: LIVE_WAIT_MS });
    await delivery.getByText('3 / 3').waitFor();
    expect(loads).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  // Last: the route stays on the page. Live changes are kept nowhere, so what moved while the
  // socket was down reaches the page only because it reads again once the socket is back.
  it('a change made while the live socket was down shows once it is back, without a reload', async () => {
    const { page } = browser;
    await renewSession(browser, app.url, holder);
    const key = await writeKey(['servers:read', 'servers:write']);
    const sockets: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      sockets.push({ page: ws, server: ws.connectToServer() });
    });
    await open(page, `/servers/${serverId}`, /web-1/);
    expect(await apiStatus(serverId)).toBe('stopped');
    await serverStatusIs(page, 'stopped');
    expect(sockets).toHaveLength(1);

    // The connection drops as it does when an instance restarts (1012: the client reconnects).
    await sockets[0].server.close({ code: 1012, reason: 'restart' });
    await sockets[0].page.close({ code: 1012, reason: 'restart' });
    await page
      .getByTestId('live-status')
      .getByText(/offline|connecting/)
      .waitFor();
    expect((await app.call('POST', `/v1/servers/${serverId}/power/start`, { key })).status).toBe(200);
    expect(await apiStatus(serverId)).toBe('running');
    // The change was made before the client came back (its first retry waits over a second).
    expect(sockets).toHaveLength(1);

    await page.getByTestId('live-status').getByText('live').waitFor({ timeout: LIVE_WAIT_MS });
    expect(sockets).toHaveLength(2);
    await serverStatusIs(page, 'running');
    expect(loads).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
