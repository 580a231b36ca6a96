import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTEN_SOCKETS, listenHttp } from '../../src/http/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// libuv takes one new connection per listening socket per turn of the event loop; the server
// listens on LISTEN_SOCKETS sockets sharing its port (src/http/listen.ts), so a burst of new
// connections is taken that many a turn, however busy the turns are.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const CONNECTIONS = 200;

describe.skipIf(process.platform !== 'linux')('listening sockets', () => {
  it('takes a burst of pending connections many a turn, and serves each', async () => {
    const server = app.running.server;
    let accepted = 0;
    const count = () => accepted++;
    server.on('connection', count);
    const port = Number(new URL(app.url).port);
    const sockets = Array.from({ length: CONNECTIONS }, () => net.connect(port, '127.0.0.1'));
    // The loop busy while the kernel completes every handshake: all of them wait to be taken.
    const until = performance.now() + 100;
    while (performance.now() < until);
    const perTurn: number[] = [];
    await new Promise<void>((resolve) => {
      let before = accepted;
      const turn = () => {
        perTurn.push(accepted - before);
        before = accepted;
        if (accepted >= CONNECTIONS || perTurn.length > 10_000) resolve();
        else setImmediate(turn);
      };
      setImmediate(turn);
    });
    server.off('connection', count);
    expect(accepted).toBe(CONNECTIONS);
    // One socket would take one a turn; the kernel spreads the burst over the LISTEN_SOCKETS.
    expect(LISTEN_SOCKETS).toBeGreaterThanOrEqual(16);
    expect(Math.max(...perTurn)).toBeGreaterThanOrEqual(8);
    const answers = await Promise.all(
      sockets.slice(0, 20).map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.on('data', (d) => (text += d));
            socket.on('end', () => resolve(text));
            socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
          }),
      ),
    );
    for (const text of answers) expect(text).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of sockets) socket.destroy();
  });

  it('refuses a port another listener holds, even one that shares ports, rather than sharing it', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen({ port: 0, host: '127.0.0.1', reusePort: true }, resolve));
    const { port } = holder.address() as net.AddressInfo;
    const server = http.createServer();
    await expect(listenHttp(server, '127.0.0.1', port)).rejects.toThrow(/EADDRINUSE/);
    expect(server.listening).toBe(false);
    await new Promise((resolve) => holder.close(resolve));
  });

  it('a graceful stop lets the requests in flight on every socket finish', async () => {
    const stopping = await startTestApp();
    // Two credentials, 16 requests each: within one credential's share of requests in flight.
    const keys = [(await stopping.customer()).key, (await stopping.customer()).key];
    const port = Number(new URL(stopping.url).port);
    const body = JSON.stringify({ query: '{ __typename }' });
    // Most of these connections are taken by the sockets that hand theirs over.
    const sockets = await Promise.all(
      Array.from(
        { length: 32 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    const answers = sockets.map(
      (socket) =>
        new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (d) => (text += d));
          socket.on('close', () => resolve(text));
        }),
    );
    // Each request waits in its body stage: half of its body sent.
    for (const [i, socket] of sockets.entries())
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${keys[i % 2]}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 300));
    let stopped = false;
    const stop = stopping.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopped).toBe(false);
    for (const socket of sockets) socket.write(body.slice(5));
    await stop;
    for (const answer of await Promise.all(answers))
      expect(answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*"__typename":"Query"/);
  });
});
