import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp({ requestTimeoutMs: 1500 });
  c = await app.customer();
});
afterAll(() => app?.stop());

const BODY = JSON.stringify({ subject: 'Slow', message: 'Sent a byte at a time.', department: 'technical' });

/** Opens a raw connection and sends a POST /v1/tickets whose body stops after `sent` bytes. */
function partialPost(sent: number): { socket: net.Socket; answer: Promise<string> } {
  const { port } = new URL(app.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write(
    `POST /v1/tickets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${c.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY.slice(0, sent)}`,
  );
  let text = '';
  socket.on('data', (d) => (text += d.toString()));
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
  return { socket, answer };
}

const tickets = async () => (await app.call('GET', '/v1/tickets', { key: c.key })).body.data.length;

describe('a slow or abandoned request body', () => {
  it('a body that never finishes is cut off at the request timeout with 408, and nothing is created', async () => {
    const started = Date.now();
    const { answer } = partialPost(10);
    const text = await answer;
    expect(Date.now() - started).toBeLessThan(6000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"statusCode":408');
    expect(await tickets()).toBe(0);
    expect(app.logs.join('\n')).not.toContain('database unavailable');
  });

  it('a client that hangs up mid-body is logged as an abort, not as a database outage', async () => {
    const { socket, answer } = partialPost(20);
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    await answer;
    await expect
      .poll(() => app.logs.some((l) => JSON.parse(l).msg === 'request aborted by the client'), { timeout: 3000 })
      .toBe(true);
    const lines = app.logs.map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === 'database unavailable' || l.msg === 'unhandled error')).toEqual([]);
    expect(await tickets()).toBe(0);
  });
});
