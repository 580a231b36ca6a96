import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slicedLoad } from '../../bench/lib.ts';

// The benchmark's time slicing (bench/lib.ts): a slice holds its own state's requests only,
// and each state's throughput is its answers over its own time.

let server: http.Server;
let url: string;
let serverState = 'a';
const mixed: string[] = [];
beforeAll(async () => {
  // Answers after 100 ms in state `a` and at once in state `b` (waiting, not CPU, so a busy
  // machine stretches both alike); notes any request that arrives in a state other than the one
  // it was sent for.
  server = http.createServer((req, res) => {
    const sentFor = req.headers['x-state'] as string;
    if (sentFor !== serverState) mixed.push(`${sentFor} in ${serverState}`);
    if (serverState === 'a') setTimeout(() => res.end('ok'), 100);
    else res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('slicedLoad', () => {
  it('switches only once the old state is answered, and measures each state on its own time', {
    timeout: 30_000,
  }, async () => {
    const rps = await slicedLoad({
      url,
      states: ['a', 'b'] as const,
      seconds: 2,
      sliceMs: 100,
      enter: (state) => (serverState = state),
      request: (state) => ({ path: '/', headers: { 'X-State': state } }),
    });
    expect(mixed).toEqual([]);
    // A state that answers far sooner shows far more throughput over its own time (loose: a
    // shared slice clock would pull the two together).
    expect(rps.b / rps.a).toBeGreaterThan(2);
  });

  it('fails the run on an answer other than 2xx', async () => {
    await expect(
      slicedLoad({
        url,
        states: ['a'] as const,
        seconds: 0.2,
        sliceMs: 50,
        request: () => ({ path: '/', method: 'POST', headers: { 'X-State': 'a' }, body: 'x' }),
      }).then(() => 'ran'),
    ).resolves.toBe('ran');
    const failing = http.createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    try {
      const at = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
      await expect(
        slicedLoad({ url: at, states: ['a'] as const, seconds: 0.2, sliceMs: 50, request: () => ({ path: '/x' }) }),
      ).rejects.toThrow('GET /x: HTTP 503');
    } finally {
      await new Promise<void>((r) => failing.close(() => r()));
    }
  });
});
