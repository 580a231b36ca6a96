import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { provisionedServers, runDueWork } from '../helpers/webhooks.ts';

let app: TestApp;
let slow: http.Server;
let url: string;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true, webhookTimeoutMs: 400 });
  // Answers after 2 s: past the timeout.
  slow = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
});
afterAll(async () => {
  slow?.closeAllConnections();
  slow?.close();
  await app?.stop();
});

describe('webhook delivery timeout', () => {
  it('counts a response slower than the timeout as a failed attempt and schedules a retry', async () => {
    const c = await app.customer();
    const hook = (await app.call('POST', '/v1/webhooks', { key: c.key, body: { url, events: ['server.created'] } }))
      .body;
    await provisionedServers(app, c.accountId);
    const started = Date.now();
    await runDueWork(app);
    expect(Date.now() - started).toBeLessThan(1900);
    const d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
    expect(d).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      lastStatusCode: null,
      lastError: 'timed out after 400 ms',
    });
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
    expect(d.attempts[0].durationMs).toBeLessThan(1500);
  });
});
