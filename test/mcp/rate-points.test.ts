import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';

/**
 * What an MCP message costs (src/http/pipeline/count.ts, src/mcp/http.ts mcpMessageSpendsPoint):
 * notifications, initialize, ping and listings spend no point of the credential's 120 per
 * minute; calls do. Every message, free or not, spends a point of the credential's MCP message
 * budget (600 per minute), so a flood of free ones is bounded, and is authenticated first.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/** One JSON-RPC message to /mcp as a stateless client sends it. */
const post = (key: string | null, message: unknown) =>
  fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(message),
  });
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const PING = { jsonrpc: '2.0', id: 3, method: 'ping' };
const CALL = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'servers_list', arguments: {} } };

/** The credential's request budget left, read without spending. */
const requestsLeft = async (c: Customer) => (await app.running.app.limits.peek('default', c.keyId)).remaining;

describe('MCP: what spends a rate point', () => {
  it('an SDK session connects, lists and pings for free; its first call is its first point', async () => {
    const c = await app.customer();
    const counter = { requests: 0 };
    const client = await mcpClient(app.url, c.key, {}, counter);
    await client.listTools();
    await client.ping();
    // initialize, notifications/initialized, the GET for a stream (405), tools/list, ping: five
    // HTTP requests, no point.
    expect(counter.requests).toBe(5);
    expect(await requestsLeft(c)).toBe(120);
    await client.callTool({ name: 'servers_list', arguments: {} });
    expect(await requestsLeft(c)).toBe(119);
    await client.close();

    // The answers say so: a free message shows the standing, a call the point it spent.
    const listed = await post(c.key, LIST);
    expect(listed.status).toBe(200);
    expect([listed.headers.get('x-ratelimit-limit'), listed.headers.get('x-ratelimit-remaining')]).toEqual([
      '120',
      '119',
    ]);
    expect(listed.headers.get('retry-after')).toBeNull();
    const called = await post(c.key, CALL);
    expect(called.headers.get('x-ratelimit-remaining')).toBe('118');
  });

  it('with the minute spent, a call is refused (429) while connecting, listing and pinging still work', async () => {
    const c = await app.customer();
    for (let i = 0; i < 120; i++) expect((await post(c.key, CALL)).status).toBe(200);
    const refused = await post(c.key, CALL);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/120 requests/),
    });
    expect((await post(c.key, INITIALIZE)).status).toBe(200);
    expect((await post(c.key, INITIALIZED)).status).toBe(202);
    const listed = await post(c.key, LIST);
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.tools.length).toBeGreaterThan(0);
    expect(listed.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await (await post(c.key, PING)).json()).result).toEqual({});
    // A batch of free messages is not one: refused whole, and it costs a point like a call.
    expect((await post(c.key, [LIST, PING])).status).toBe(429);
  });

  it("a response (a person's answer to a question the server asked) is free; a body with no method is not", async () => {
    const c = await app.customer();
    // No question is waiting for this answer: it is taken and dropped, unrun, at no point.
    const answer = await post(c.key, { jsonrpc: '2.0', id: 'q-1', result: { action: 'decline' } });
    expect(answer.status).toBeLessThan(300);
    expect(await requestsLeft(c)).toBe(120);
    await post(c.key, { jsonrpc: '2.0', id: 7 });
    expect(await requestsLeft(c)).toBe(119);
  });

  it('a call without an id is a notification: free, and nothing runs', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 10_000 });
    const sneaky = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'servers_list', arguments: {} } };
    for (let i = 0; i < 3; i++) expect((await post(c.key, sneaky)).status).toBe(202);
    expect(await requestsLeft(c)).toBe(120);
    const audit = await app.call('GET', '/v1/servers', { key: c.key });
    expect(audit.body.data).toEqual([]);
  });

  it('free messages are authenticated, and bounded: 600 per credential per minute, then 429', async () => {
    const missing = await post(null, LIST);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await post('svc_not_a_key', INITIALIZED)).status).toBe(401);

    const c = await app.customer();
    const statuses: number[] = [];
    for (let round = 0; round < 60; round++)
      statuses.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => post(c.key, INITIALIZED)))).map((r) => r.status),
      );
    expect(statuses.filter((s) => s === 202)).toHaveLength(600);
    const flood = await post(c.key, LIST);
    expect(flood.status).toBe(429);
    expect(flood.headers.get('x-ratelimit-limit')).toBe('600');
    expect(Number(flood.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await flood.json()).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/rate limit of 600 MCP messages per minute/),
    });
    // A call is refused by the same bound before its own point is spent.
    expect((await post(c.key, CALL)).status).toBe(429);
    expect(await requestsLeft(c)).toBe(120);
    // Other credentials are untouched.
    const other = await app.customer();
    expect((await post(other.key, LIST)).status).toBe(200);
  });
});
