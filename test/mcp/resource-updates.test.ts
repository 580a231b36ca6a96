import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { advance, runningServer } from '../helpers/servers.ts';

/**
 * Resource updates from the event stream (MCP 2026-07-28 `subscriptions/listen`; src/mcp/
 * resource-updates.ts), with the official 2.x client's `listen()`: a change the API records
 * reaches the listening client as `notifications/resources/updated` for the resources it may
 * have changed — only its own account's, only what its credential may read — and the stream
 * ends when the credential is revoked.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const serverUri = (id: string) => `cloud-account:///v1/servers/${id}`;
const SUMMARY = 'cloud-account:///v1/account/summary';

async function listener(key: string, on: TestApp = app) {
  const client = new Client(
    { name: 'listen-test-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const updated: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updated.push((n.params as { uri: string }).uri);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${on.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return { client, updated };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const power = (c: Customer, id: string, action: string) =>
  app.call('POST', `/v1/servers/${id}/power/${action}`, { key: c.key });

describe('subscriptions/listen: resource updates from the event stream', () => {
  it("notifies its own server's changes and the summary's, never another account's", async () => {
    const c = await app.customer();
    const stranger = await app.customer();
    const mine = await runningServer(app, c);
    const theirs = await runningServer(app, stranger);
    const { client, updated } = await listener(c.key);
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });

    const subscription = await client.listen({ resourceSubscriptions: [serverUri(mine), serverUri(theirs), SUMMARY] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual([serverUri(mine), serverUri(theirs), SUMMARY]);

    // The other account's server changes first: its event is not this credential's to see.
    expect((await power(stranger, theirs, 'stop')).status).toBe(200);
    expect((await power(c, mine, 'stop')).status).toBe(200);
    await until(() => updated.includes(serverUri(mine)) && updated.includes(SUMMARY));
    expect(updated).not.toContain(serverUri(theirs));
    // Only what was asked for: the server's sub-resources changed too, but were not listed.
    expect(updated.every((u) => [serverUri(mine), SUMMARY].includes(u))).toBe(true);

    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await client.close();
  });

  it('notifies a state move no event reports (a reboot settling), leaving the event history alone', async () => {
    const c = await app.customer();
    const mine = await runningServer(app, c);
    const { client, updated } = await listener(c.key);
    const history = 'cloud-account:///v1/events';
    const subscription = await client.listen({ resourceSubscriptions: [serverUri(mine), history] });
    expect((await power(c, mine, 'reboot')).status).toBe(200);
    // The reboot is an event (server.power.changed): the server and the history.
    await until(() => updated.includes(serverUri(mine)) && updated.includes(history));
    updated.length = 0;
    // Rebooting → running is a live change only (server.status.changed): the server, not the history.
    await advance(app, 120);
    await until(() => updated.includes(serverUri(mine)));
    expect(updated).not.toContain(history);
    await subscription.close();
    await client.close();
  });

  it('ends the stream when its credential is revoked', { timeout: 30_000 }, async () => {
    const c = await app.customer();
    const mine = await runningServer(app, c);
    const { client } = await listener(c.key);
    const subscription = await client.listen({ resourceSubscriptions: [serverUri(mine)] });
    const revoked = await app.admin('DELETE', `/admin/accounts/${c.accountId}/api-keys/${c.keyId}`);
    expect(revoked.status).toBe(200);
    expect(await subscription.closed).toBe('graceful');
    await client.close().catch(() => undefined);
  });

  it('a stopping instance ends its listen streams gracefully, not by cutting the connection', async () => {
    const stopping = await startTestApp();
    const c = await stopping.customer();
    const { client } = await listener(c.key, stopping);
    const subscription = await client.listen({ resourceSubscriptions: [SUMMARY] });
    await stopping.stop();
    expect(await subscription.closed).toBe('graceful');
    await client.close().catch(() => undefined);
  });
});
