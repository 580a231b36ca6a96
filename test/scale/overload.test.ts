import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client as WsClient, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_TOKEN, type Customer, startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The overload limiters as a client meets them (src/http/admission/overload.ts; REFERENCE: Overload), on an
 * instance with tiny limits. The test fills the instance itself: it takes slots as requests in
 * flight hold them (and a credential's share, as its requests do), so it decides exactly when the
 * instance is full; every request it then sends is a client's. (A request whose body is still on
 * its way holds no slot: test/security/slow-senders.test.ts.)
 */
const LIMITS = {
  maxInFlight: 2,
  maxQueued: 2,
  maxQueueWaitMs: 1000,
  maxInFlightPerCredential: 3,
  maxEventLoopDelayMs: 10_000,
};
let app: TestApp;
let c: Customer;
let other: Customer;

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

/** One slot per customer taken, each counted against that customer's credential, until its `finish()`. */
async function fill(customers: Customer[]) {
  const overload = app.running.app.overload;
  const held = [];
  for (const customer of customers) {
    const slot = await overload.acquire('write');
    const share = overload.enterCredential(customer.keyId, 'write');
    held.push({
      finish() {
        share();
        slot();
      },
    });
  }
  return held;
}

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9, overload: LIMITS });
  c = await app.customer();
  other = await app.customer();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe('the concurrent-requests limiter and load shedder', () => {
  it('a full instance refuses a read that waited out its budget with 503 OVERLOADED and Retry-After; health answers at once', async () => {
    const held = await fill([c, other]);
    try {
      const started = performance.now();
      const read = await app.call('GET', '/v1/servers', { key: c.key });
      expect(performance.now() - started).toBeGreaterThanOrEqual(LIMITS.maxQueueWaitMs - 5);
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('1');
      expect(read.body).toEqual({
        statusCode: 503,
        message: 'The service is overloaded; retry after 1 s.',
        error: 'Service Unavailable',
        code: 'OVERLOADED',
      });
      const health = performance.now();
      expect((await app.call('GET', '/healthz')).status).toBe(200);
      expect(performance.now() - health).toBeLessThan(LIMITS.maxQueueWaitMs);
      // Pages and documents are reads too; past the reads' part of the queue one is refused at once.
      const waiting = app.call('GET', '/v1/openapi.json');
      await waitFor(() => app.running.app.overload.state().queued === 1);
      const beyond = performance.now();
      expect((await app.call('GET', '/docs')).status).toBe(503);
      expect(performance.now() - beyond).toBeLessThan(LIMITS.maxQueueWaitMs);
      expect((await waiting).status).toBe(503);
    } finally {
      for (const h of held) h.finish();
    }
    expect((await app.call('GET', '/v1/servers', { key: c.key })).status).toBe(200);
  });

  it('a freed slot goes to the waiting write before the read that waited longer', async () => {
    const held = await fill([c, other]);
    const done: string[] = [];
    const read = app.call('GET', '/v1/servers', { key: c.key }).finally(() => done.push('read'));
    await waitFor(() => app.running.app.overload.state().queued === 1);
    const waiting = app
      .call('POST', '/v1/tickets', { key: other.key, body: { subject: 'Queued', message: 'Waits' } })
      .finally(() => done.push('write'));
    await waitFor(() => app.running.app.overload.state().queued === 2);
    // Saturated: readiness says so, for a balancer to send new work elsewhere.
    const ready = await app.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'saturated', load: { inFlight: 2, queued: 2, saturated: true } });
    held[0].finish();
    expect((await waiting).status).toBe(200);
    // The read queued first, but the one freed slot went to the write; the read runs after it.
    expect((await read).status).toBe(200);
    expect(done).toEqual(['write', 'read']);
    held[1].finish();
    expect((await app.call('GET', '/readyz')).status).toBe(200);
  });

  it('a write that cannot start within the queue budget is refused with 503, and the queue has a bound', async () => {
    const held = await fill([c, other]);
    try {
      const queued = [1, 2].map((n) =>
        app.call('POST', '/v1/tickets', { key: other.key, body: { subject: `Q${n}`, message: 'Waits' } }),
      );
      await waitFor(() => app.running.app.overload.state().queued === 2);
      const beyond = await app.call('POST', '/v1/tickets', { key: other.key, body: { subject: 'Q3', message: 'x' } });
      expect(beyond.status).toBe(503);
      expect(beyond.body.code).toBe('OVERLOADED');
      for (const late of await Promise.all(queued)) {
        expect(late.status).toBe(503);
        expect(late.headers.get('retry-after')).toBe('1');
      }
    } finally {
      for (const h of held) h.finish();
    }
    const tickets = await app.call('GET', '/v1/tickets', { key: other.key });
    expect(tickets.body.data.map((t: { subject: string }) => t.subject)).not.toContain('Q3');
  });

  it('MCP calls obey the same limits: 503 OVERLOADED once the queue budget is spent', async () => {
    const held = await fill([c, other]);
    try {
      const mcp = await app.call('POST', '/mcp', {
        key: c.key,
        headers: { Accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'servers_list', arguments: {} } },
      });
      expect(mcp.status).toBe(503);
      expect(mcp.body.code).toBe('OVERLOADED');
    } finally {
      for (const h of held) h.finish();
    }
  });

  it('graphql-ws operations are refused in protocol with the same code', async () => {
    const client: WsClient = createClient({
      url: `${app.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${c.key}` },
      retryAttempts: 0,
    });
    const held = await fill([c, other]);
    try {
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: '{ servers(first: 1) { nodes { id } } }' },
          { next: () => undefined, error: resolve, complete: () => resolve(undefined) },
        );
      });
      expect(JSON.stringify(errors)).toContain('OVERLOADED');
    } finally {
      for (const h of held) h.finish();
      await client.dispose();
    }
  });

  it('a request whose client hangs up while it waits leaves the queue: no slot, no refusal spent on it', async () => {
    const shedTimeouts = async () => {
      const metrics = await app.call('GET', '/metrics', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      return Number(/http_shed_total\{reason="queue_timeout",criticality="read"\} (\d+)/.exec(metrics.text)?.[1] ?? 0);
    };
    const before = await shedTimeouts();
    const held = await fill([c, other]);
    try {
      const url = new URL(`${app.url}/v1/servers`);
      const gone = http.get({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        headers: { Authorization: `Bearer ${c.key}` },
      });
      gone.on('error', () => undefined);
      await waitFor(() => app.running.app.overload.state().queued === 1);
      gone.destroy();
      // It leaves at once, not when its budget runs out (which would count a queue_timeout).
      await waitFor(() => app.running.app.overload.state().queued === 0);
      expect(await shedTimeouts()).toBe(before);
    } finally {
      for (const h of held) h.finish();
    }
  });

  it('one credential has at most its share in flight: 429 TOO_MANY_CONCURRENT_REQUESTS; others are served', async () => {
    await app.stop();
    app = await startTestApp({ requestsPerMinute: 1e9, overload: { ...LIMITS, maxInFlight: 10 } });
    c = await app.customer();
    other = await app.customer();
    const held = await fill([c, c, c]);
    try {
      const fourth = await app.call('GET', '/v1/servers', { key: c.key });
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('1');
      expect(fourth.body.code).toBe('TOO_MANY_CONCURRENT_REQUESTS');
      expect((await app.call('GET', '/v1/servers', { key: other.key })).status).toBe(200);
    } finally {
      for (const h of held) h.finish();
    }
    expect((await app.call('GET', '/v1/servers', { key: c.key })).status).toBe(200);
  });

  it('/metrics counts what was shed, by reason, and the queue wait', async () => {
    const metrics = await app.call('GET', '/metrics', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(metrics.text).toMatch(/http_shed_total\{reason="credential",criticality="read"\} 1/);
    expect(metrics.text).toMatch(/http_queue_wait_seconds_count/);
    expect(metrics.text).toMatch(/http_requests_in_flight 0/);
  });
});
