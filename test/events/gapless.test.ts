import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { EventStream } from '../../src/events/stream.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { subscribeEvents } from '../helpers/graphql-ws.ts';
import { provisionedServers } from '../helpers/webhooks.ts';

// Provisioning's own events may still be on their way to the relay when a test subscribes;
// only the power changes the tests cause are counted.
const POWER_ONLY = { types: ['server.power.changed'] };

// A connected subscriber sees every event, in relay order, even when the stream itself lost
// one (src/events/gapless.ts): a failed publish, or another instance's relay with no shared Redis.

describe('live events are gap-free while a subscriber stays connected', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ redisUrl: undefined });
  });
  afterAll(() => app?.stop());

  it('an event whose publish was lost still reaches the subscriber, before the next one and once', async () => {
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const sub = await subscribeEvents(app.url, c.key, POWER_ONLY);
    // The transport under the gap filler drops the next publish, as a Redis outage would.
    const inner = (app.running.app.events as unknown as { inner: EventStream }).inner;
    const publish = inner.publish.bind(inner);
    let dropped = 0;
    inner.publish = async (events) => {
      inner.publish = publish;
      dropped = events.length;
    };
    try {
      expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key })).status).toBe(200);
      // Nothing later reveals the loss: the look at the relay cursor must (within ~1 s).
      const [first] = await sub.waitFor(1, 5000);
      expect(dropped).toBe(1);
      expect(first).toMatchObject({ type: 'server.power.changed', data: { serverId, action: 'stop' } });

      // Now a loss that the next event reveals: both arrive, in order.
      inner.publish = async () => {
        inner.publish = publish;
        dropped++;
      };
      expect((await app.call('POST', `/v1/servers/${serverId}/power/start`, { key: c.key })).status).toBe(200);
      expect((await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key })).status).toBe(200);
      const events = await sub.waitFor(3, 5000);
      expect(dropped).toBe(2);
      expect(events.map((e) => e.data.action)).toEqual(['stop', 'start', 'stop']);
      await new Promise((r) => setTimeout(r, 1500));
      expect(sub.events).toHaveLength(3);
      expect(new Set(sub.events.map((e) => e.id)).size).toBe(3);
    } finally {
      inner.publish = publish;
      await sub.dispose();
    }
  });
});

// Two instances on one PostgreSQL database and no Redis: each relay publishes only in its own
// process, yet a subscriber on either instance sees what the other relayed.
describe.runIf(process.env.TEST_DATABASE_URL)('two instances on one database without Redis', () => {
  let a: TestApp;
  let b: RunningApp;
  let dataDir: string;
  beforeAll(async () => {
    a = await startTestApp({ redisUrl: undefined, backgroundJobs: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-b-'));
    b = await startApp(
      loadConfig({}, { ...a.running.app.config, port: 0, dataDir, redisUrl: undefined, logLevel: 'warn' }),
    );
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a subscriber on A receives every event caused through B, in order, once; a stopped instance relays nothing', async () => {
    const c = await a.customer();
    const [serverId] = await provisionedServers(a, c.accountId);
    const sub = await subscribeEvents(a.url, c.key, POWER_ONLY);
    try {
      const actions = ['stop', 'start', 'stop', 'start', 'stop', 'start'];
      for (const action of actions) {
        const res = await fetch(`${b.url}/v1/servers/${serverId}/power/${action}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${c.key}` },
        });
        expect(res.status).toBe(200);
      }
      const events = await sub.waitFor(actions.length, 10_000);
      expect(events.map((e) => e.data.action)).toEqual(actions);

      // B stops; what A's clients cause afterwards is A's to relay, all of it reaches A's subscriber.
      await b.stop();
      for (const action of ['stop', 'start'])
        expect((await a.call('POST', `/v1/servers/${serverId}/power/${action}`, { key: c.key })).status).toBe(200);
      await sub.waitFor(actions.length + 2, 10_000);
      expect(new Set(sub.events.map((e) => e.id)).size).toBe(actions.length + 2);
    } finally {
      await sub.dispose();
    }
  });
});
