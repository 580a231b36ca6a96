import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { subscribeEvents } from '../helpers/graphql-ws.ts';
import { CREDENTIAL_RECHECK_MS } from '../../src/modules/events/live.ts';
import { revokeApiKey } from '../../src/modules/auth/service.ts';
import { provisionedServers } from '../helpers/webhooks.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GraphQL subscriptions over graphql-ws on /graphql', () => {
  it('a subscriber receives the event a REST call caused, in the webhook envelope', async () => {
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const sub = await subscribeEvents(app.url, c.key);
    try {
      expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key })).status).toBe(200);
      const [event] = await sub.waitFor(1);
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'server.power.changed',
        created: expect.stringMatching(/Z$/),
        account: c.accountId,
        apiVersion: '1.16',
        data: { serverId, action: 'stop' },
      });
      const row = await app.running.app.prisma.event.findUniqueOrThrow({ where: { id: event.id } });
      expect(row.data).toEqual(event.data);
    } finally {
      await sub.dispose();
    }
  });

  it('a subscriber that reconnects with its last event id receives what it missed, then live, without duplicates', async () => {
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const first = await subscribeEvents(app.url, c.key);
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
    const [seen] = await first.waitFor(1);
    await first.dispose();

    // Missed while disconnected.
    await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: c.key });
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
    await sleep(300);

    const again = await subscribeEvents(app.url, c.key, { after: seen.id });
    try {
      await again.waitFor(2);
      await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: c.key });
      await again.waitFor(3);
      await sleep(200);
      expect(again.events.map((e) => e.data.action)).toEqual(['start', 'stop', 'start']);
      expect(new Set(again.events.map((e) => e.id)).size).toBe(3);
      expect(again.events.map((e) => e.id)).not.toContain(seen.id);
    } finally {
      await again.dispose();
    }
    const unknown = await subscribeEvents(app.url, c.key, { after: 'evt_doesnotexist' });
    await sleep(100);
    expect(JSON.stringify(unknown.errors)).toMatch(/Event not found/);
    await unknown.dispose();
  });

  it('a subscriber sees only its own account and only kinds its scopes can read', async () => {
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const ticketsOnly = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['tickets:read'],
    });
    const other = await app.customer();
    const owner = await subscribeEvents(app.url, c.key);
    const narrow = await subscribeEvents(app.url, ticketsOnly.body.key);
    const stranger = await subscribeEvents(app.url, other.key);
    try {
      await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
      await owner.waitFor(1);
      await sleep(200);
      expect(narrow.events).toEqual([]);
      expect(stranger.events).toEqual([]);
      expect(narrow.errors).toEqual([]);
    } finally {
      await Promise.all([owner.dispose(), narrow.dispose(), stranger.dispose()]);
    }

    const asked = await subscribeEvents(app.url, ticketsOnly.body.key, { types: ['server.created'] });
    await sleep(100);
    expect(JSON.stringify(asked.errors)).toMatch(/servers:read/);
    await asked.dispose();
    const noRead = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['webhooks:read'] });
    const refused = await subscribeEvents(app.url, noRead.body.key);
    await sleep(100);
    expect(JSON.stringify(refused.errors)).toMatch(/FORBIDDEN|lacks the scope/);
    await refused.dispose();
  });

  it('refuses the connection with 4401 without a valid credential', async () => {
    const bad = await subscribeEvents(app.url, `svc_${'x'.repeat(40)}`);
    expect(bad.closeCode).toBe(4401);
    await bad.dispose();
    const none = await subscribeEvents(app.url, null);
    expect(none.closeCode).toBe(4401);
    await none.dispose();
  });

  it('revoking the key ends an open subscription', { timeout: 30_000 }, async () => {
    const c = await app.customer();
    const sub = await subscribeEvents(app.url, c.key);
    try {
      expect(await revokeApiKey(app.running.app.prisma, c.accountId, c.keyId, new Date())).toBe(true);
      const until = Date.now() + CREDENTIAL_RECHECK_MS + 5000;
      while (!sub.errors.length && Date.now() < until) await sleep(100);
      expect(JSON.stringify(sub.errors)).toMatch(/revoked or has expired/);
    } finally {
      await sub.dispose();
    }
  });
});
