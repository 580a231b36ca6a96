import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientApp, Json, TestApp } from './app.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Json;
  path: string;
}

/** A real local HTTP receiver that records every POST and answers what `respond` says (200 by default). */
export interface Receiver {
  url: string;
  received: Received[];
  respond: (r: Received) => number | Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => 200,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Json;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = { headers: req.headers, body, json, path: req.url ?? '/' };
      receiver.received.push(r);
      const status = await receiver.respond(r);
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

const ORDER = { productId: 'std-2c-4g-50', label: 'web', os: 'linux', osTemplate: 'ubuntu-24.04' };

/** Orders servers through the operator API and lets the simulated clock provision them (server.created each). */
export async function provisionedServers(app: ClientApp, accountId: string, count = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = await app.admin('POST', `/admin/accounts/${accountId}/servers`, { ...ORDER, label: `web-${i + 1}` });
    if (order.status !== 201) throw new Error(`order: ${order.text}`);
    ids.push(order.body.id);
  }
  const tick = await app.admin('POST', '/admin/clock/advance', { seconds: 180 });
  if (tick.status !== 200) throw new Error(`advance: ${tick.text}`);
  return ids;
}

/** Runs the instance's due work now: relay, delivery attempts (tests start with backgroundJobs off). */
export function runDueWork(app: TestApp): Promise<number> {
  return app.running.app.runDueWork();
}

export async function advance(app: ClientApp, seconds: number): Promise<void> {
  const tick = await app.admin('POST', '/admin/clock/advance', { seconds });
  if (tick.status !== 200) throw new Error(`advance: ${tick.text}`);
}

/** Parses `t=<s>,v1=<hex>`. */
export function parseSignature(header: string | string[] | undefined): { t: number; v1: string } {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m) throw new Error(`bad signature header: ${header}`);
  return { t: Number(m[1]), v1: m[2] };
}
