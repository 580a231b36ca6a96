import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { balance } from '../helpers/servers.ts';

/**
 * Protocol 2026-07-28 beside 2025-11-25 on the same /mcp (docs/REFERENCE.md: MCP, Protocol
 * revisions), with the official 2.x client: it finds the revision with `server/discover`, sends
 * `_meta` and the routing headers on every request, and a person confirms a spending call through
 * `input_required` (the question, the signed request state, the retry with the answer).
 */
let app: TestApp;
const PURCHASES = { 'X-MCP-Toolsets': 'purchases' };
const ORDER = { productId: 'std-2c-4g-50', label: 'web-9', osTemplate: 'debian-12' };
const MONTHLY = 1_200;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

type Answer = 'accept' | 'decline' | 'cancel';

interface Seen {
  questions: string[];
  bodies: Record<string, unknown>[];
  headers: Headers[];
}

/** A 2.x client pinned to 2026-07-28; `answer` is the person's answer to every question (none: no elicitation declared). */
async function modernClient(
  key: string,
  headers: Record<string, string> = {},
  answer?: Answer | ((message: string) => Answer),
  tamper?: (body: Record<string, unknown>) => void,
): Promise<{ client: Client; seen: Seen }> {
  const seen: Seen = { questions: [], bodies: [], headers: [] };
  const client = new Client(
    { name: 'modern-test-client', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (answer)
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message;
      seen.questions.push(message);
      return { action: typeof answer === 'function' ? answer(message) : answer };
    });
  const spying: typeof fetch = async (input, init) => {
    let body = init?.body;
    if (typeof body === 'string') {
      const parsed = JSON.parse(body);
      tamper?.(parsed);
      seen.bodies.push(parsed);
      body = JSON.stringify(parsed);
    }
    seen.headers.push(new Headers(init?.headers));
    return fetch(input, { ...init, body });
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      fetch: spying,
      requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
    }),
  );
  return { client, seen };
}

const servers = (c: Customer) =>
  app.running.app.prisma.server.count({ where: { accountId: c.accountId, status: { not: 'terminated' } } });

describe('2026-07-28 with the 2.x client', () => {
  it('discovers, lists tools and calls a read; every request carries _meta and the routing headers', async () => {
    const c = await app.customer();
    const { client, seen } = await modernClient(c.key);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'cloud-account-api', title: 'Cloud Account API' });
    expect(client.getInstructions()).toMatch(/idempotency_key/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('servers_list');
    const read = await client.callTool({ name: 'servers_list', arguments: {} });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ data: [], hasMore: false });

    expect(seen.bodies[0]).toMatchObject({ method: 'server/discover' });
    expect(seen.bodies.some((b) => b.method === 'initialize')).toBe(false);
    for (const [i, body] of seen.bodies.entries()) {
      const meta = (body.params as { _meta?: Record<string, unknown> })._meta ?? {};
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      expect(seen.headers[i].get('mcp-method')).toBe(body.method);
    }
    const call = seen.bodies.findIndex((b) => b.method === 'tools/call');
    expect(seen.headers[call].get('mcp-name')).toBe('servers_list');
    await client.close();
  });

  it('answers resultType, refuses a mismatched Mcp-Method, and a 2025 client still initializes', async () => {
    const c = await app.customer();
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${c.key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Method': 'tools/list',
        'MCP-Protocol-Version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { resultType: string; tools: unknown[] } };
    expect(body.result.resultType).toBe('complete');
    expect(body.result.tools.length).toBeGreaterThan(10);

    // A routing header that disagrees with the body is refused (HeaderMismatch), nothing run.
    const mismatch = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${c.key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Method': 'tools/call',
        'MCP-Protocol-Version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);

    const legacy = await mcpClient(app.url, c.key);
    expect(legacy.getServerVersion()?.name).toBe('cloud-account-api');
    expect((await legacy.listTools()).tools.length).toBe(body.result.tools.length);
    await legacy.close();
  });
});

describe('2026-07-28: a person confirms a spending call through input_required', () => {
  it('accept: one order, the wallet moves by the quote', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const { client, seen } = await modernClient(c.key, PURCHASES, 'accept');
    const ordered = await callTool(client as never, 'server_order', ORDER);
    expect(ordered.isError, JSON.stringify(ordered.structuredContent)).toBeFalsy();
    expect(seen.questions).toEqual([
      'Order std-2c-4g-50 for $12.00/month, $12.00 charged now; wallet $50.00 → $38.00.',
    ]);
    // The retry carried the answer and the signed, expiring request state (a confirmation token).
    const retry = seen.bodies.filter((b) => b.method === 'tools/call')[1];
    expect(retry.params).toMatchObject({
      inputResponses: { confirm: { action: 'accept' } },
      requestState: expect.stringMatching(/^cfm_/),
    });
    expect(await servers(c)).toBe(1);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await client.close();
  });

  it('decline: nothing moves, and the answer says what was asked', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const { client } = await modernClient(c.key, PURCHASES, 'decline');
    const res = await callTool(client as never, 'server_order', ORDER);
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({
      statusCode: 403,
      code: 'CONFIRMATION_DECLINED',
      message: expect.stringMatching(/did not confirm \(decline\); nothing was done.*\$12\.00/),
    });
    expect(await servers(c)).toBe(0);
    expect(await balance(app, c)).toBe(5_000);
    await client.close();
  });

  it('a tampered request state: refused, nothing moves', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const tamper = (body: Record<string, unknown>) => {
      const params = body.params as { requestState?: string } | undefined;
      if (params?.requestState)
        params.requestState = `${params.requestState.slice(0, -2)}${params.requestState.endsWith('AA') ? 'BB' : 'AA'}`;
    };
    const { client } = await modernClient(c.key, PURCHASES, 'accept', tamper);
    const res = await callTool(client as never, 'server_order', ORDER);
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ statusCode: 403, code: 'CONFIRMATION_INVALID' });
    expect(await servers(c)).toBe(0);
    expect(await balance(app, c)).toBe(5_000);
    await client.close();
  });

  it('a client that declared no elicitation gets the quote and token (428), as a 2025 client does', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const { client } = await modernClient(c.key, PURCHASES);
    const first = await callTool(client as never, 'server_order', ORDER);
    expect(first.structuredContent).toMatchObject({ statusCode: 428, code: 'CONFIRMATION_REQUIRED' });
    expect(await servers(c)).toBe(0);
    const ordered = await callTool(client as never, 'server_order', {
      ...ORDER,
      confirmation: first.structuredContent.confirmation,
    });
    expect(ordered.isError).toBeFalsy();
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await client.close();
  });
});
