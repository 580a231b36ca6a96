import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBalancer } from '../../src/cluster/balancer.ts';
import { freePort } from '../helpers/process.ts';

/**
 * The cluster's balancer (`npm run cluster`) appends the client's address to X-Forwarded-For, on
 * plain requests and WebSocket upgrades alike: what a client sent stays to the left, where an
 * instance started with TRUST_PROXY=loopback never reaches it (test/security/trust-proxy.test.ts).
 */
const seen: (string | undefined)[] = [];
let target: http.Server;
let balancer: http.Server;
let lb: string;

beforeAll(async () => {
  target = http.createServer((req, res) => {
    seen.push(req.headers['x-forwarded-for'] as string | undefined);
    res.end('ok');
  });
  target.on('upgrade', (req, socket) => {
    seen.push(req.headers['x-forwarded-for'] as string | undefined);
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = await freePort();
  balancer = await startBalancer({
    port,
    targets: [{ host: '127.0.0.1', port: (target.address() as AddressInfo).port }],
  });
  lb = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await new Promise((r) => balancer.close(r));
  await new Promise((r) => target.close(r));
});

/** An upgrade request through the balancer with the given headers; resolves once the target has answered. */
function upgrade(headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(`${lb}/graphql`, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', ...headers },
    });
    req.on('response', (res) => res.resume().on('end', resolve));
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve();
    });
    req.on('error', () => resolve());
    req.end();
  });
}

describe('the balancer and X-Forwarded-For', () => {
  it('appends the client to what the client sent, never replaces it, on requests and upgrades', async () => {
    seen.length = 0;
    await (await fetch(`${lb}/v1/account`)).text();
    await (await fetch(`${lb}/v1/account`, { headers: { 'X-Forwarded-For': '198.51.100.1' } })).text();
    await upgrade({ 'X-Forwarded-For': '198.51.100.2, 198.51.100.3' });
    await upgrade({});
    expect(seen).toEqual([
      '127.0.0.1',
      '198.51.100.1, 127.0.0.1',
      '198.51.100.2, 198.51.100.3, 127.0.0.1',
      '127.0.0.1',
    ]);
  });
});
