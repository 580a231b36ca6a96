import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { subscribeEvents } from '../helpers/graphql-ws.ts';
import { provisionedServers } from '../helpers/webhooks.ts';

// The event stream on Redis pub/sub (REDIS_URL): needs a redis-server binary, else skipped.
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

let redis: ChildProcess | undefined;
let app: TestApp;
beforeAll(async () => {
  if (!hasRedis) return;
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const c = net
        .connect(port, '127.0.0.1', () => {
          c.end();
          resolve(true);
        })
        .on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  app = await startTestApp({ redisUrl: `redis://127.0.0.1:${port}` });
});
afterAll(async () => {
  await app?.stop();
  redis?.kill();
});

describe.skipIf(!hasRedis)('event stream over Redis pub/sub', () => {
  it('relays events through Redis to graphql-ws subscribers', async () => {
    expect(app.running.app.events.kind).toBe('redis');
    const c = await app.customer();
    const [serverId] = await provisionedServers(app, c.accountId);
    const sub = await subscribeEvents(app.url, c.key);
    try {
      await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
      const [event] = await sub.waitFor(1);
      expect(event).toMatchObject({
        type: 'server.power.changed',
        account: c.accountId,
        data: { serverId, action: 'stop' },
      });
    } finally {
      await sub.dispose();
    }
  });
});
