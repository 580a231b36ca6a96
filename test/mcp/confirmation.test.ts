import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRMATION_TTL_MS } from '../../src/modules/auth/confirmations.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient, type ToolResult } from '../helpers/mcp.ts';
import { advance, balance, runningServer } from '../helpers/servers.ts';

/**
 * An agent never spends or destroys without a person's yes (docs/REFERENCE.md: MCP, Confirmation):
 * a tool whose operation declares a consequence does not run at once over MCP. A client without
 * elicitation gets the quote and a single-use token; the same call with the token runs, once.
 */
let app: TestApp;
const PURCHASES = { 'X-MCP-Toolsets': 'purchases' };
const ORDER = { productId: 'std-2c-4g-50', label: 'web-9', osTemplate: 'debian-12' };
const MONTHLY = 1_200;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const servers = (c: Customer) =>
  app.running.app.prisma.server.count({ where: { accountId: c.accountId, status: { not: 'terminated' } } });

async function buyer(walletBalanceUsdCents = 5_000) {
  const c = await app.customer({ walletBalanceUsdCents });
  return { c, client: await mcpClient(app.url, c.key, PURCHASES) };
}

/** The quote of a first call: 428, nothing done, the question and its token. */
function expectQuote(res: ToolResult, message: RegExp): string {
  expect(res.isError).toBe(true);
  expect(res.structuredContent).toMatchObject({
    statusCode: 428,
    code: 'CONFIRMATION_REQUIRED',
    quote: expect.stringMatching(message),
    confirmation: expect.stringMatching(/^cfm_/),
  });
  expect(res.structuredContent.message).toContain('"confirmation"');
  return res.structuredContent.confirmation;
}

function expectRefused(res: ToolResult, code: string, message: RegExp) {
  expect(res.isError).toBe(true);
  expect(res.structuredContent).toMatchObject({ statusCode: 403, code, message: expect.stringMatching(message) });
}

describe('a client without elicitation: quote and token', () => {
  it('answers the price first; the same call with the token orders once, for the quoted amount', async () => {
    const { c, client } = await buyer();
    const token = expectQuote(
      await callTool(client, 'server_order', ORDER),
      /^Order std-2c-4g-50 for \$12\.00\/month, \$12\.00 charged now; wallet \$50\.00 → \$38\.00\.$/,
    );
    expect(await servers(c)).toBe(0);
    expect(await balance(app, c)).toBe(5_000);

    const ordered = await callTool(client, 'server_order', { ...ORDER, confirmation: token });
    expect(ordered.isError, JSON.stringify(ordered.structuredContent)).toBeFalsy();
    expect(ordered.structuredContent).toMatchObject({ chargedUsdCents: MONTHLY, server: { status: 'provisioning' } });
    expect(await servers(c)).toBe(1);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);

    // The token is spent: a replay runs nothing, even the same call.
    expectRefused(
      await callTool(client, 'server_order', { ...ORDER, confirmation: token }),
      'CONFIRMATION_INVALID',
      /already used/,
    );
    expect(await servers(c)).toBe(1);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await client.close();
  });

  it('a token replayed concurrently runs once', async () => {
    const { c, client } = await buyer();
    const token = expectQuote(await callTool(client, 'server_order', ORDER), /^Order/);
    const other = await mcpClient(app.url, c.key, PURCHASES);
    const results = await Promise.all(
      [client, other, client, other].map((cl) => callTool(cl, 'server_order', { ...ORDER, confirmation: token })),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(results.filter((r) => r.structuredContent.code === 'CONFIRMATION_INVALID')).toHaveLength(3);
    expect(await servers(c)).toBe(1);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await Promise.all([client.close(), other.close()]);
  });

  it('refuses a tampered token, one for other arguments, an expired one and another credential’s; nothing moves', async () => {
    const { c, client } = await buyer();
    const token = expectQuote(await callTool(client, 'server_order', ORDER), /^Order/);
    const [body, mac] = token.split('.');
    const payload = JSON.parse(Buffer.from(body.slice(4), 'base64url').toString());
    const forged = `cfm_${Buffer.from(JSON.stringify({ ...payload, x: payload.x + 3_600_000 })).toString('base64url')}.${mac}`;
    expectRefused(
      await callTool(client, 'server_order', { ...ORDER, confirmation: forged }),
      'CONFIRMATION_INVALID',
      /not one this service issued, or it was altered/,
    );
    expectRefused(
      await callTool(client, 'server_order', {
        ...ORDER,
        confirmation: `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`,
      }),
      'CONFIRMATION_INVALID',
      /altered/,
    );
    expectRefused(
      await callTool(client, 'server_order', { ...ORDER, productId: 'std-4c-8g-100', confirmation: token }),
      'CONFIRMATION_INVALID',
      /another tool or other arguments/,
    );
    const otherKey = (await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:write'] }))
      .body.key;
    const other = await mcpClient(app.url, otherKey, PURCHASES);
    expectRefused(
      await callTool(other, 'server_order', { ...ORDER, confirmation: token }),
      'CONFIRMATION_INVALID',
      /another credential/,
    );
    // The refusals spent nothing: the token still confirms its own call, until it expires.
    await advance(app, CONFIRMATION_TTL_MS / 1000 + 1);
    expectRefused(
      await callTool(client, 'server_order', { ...ORDER, confirmation: token }),
      'CONFIRMATION_INVALID',
      /expired/,
    );
    expect(await servers(c)).toBe(0);
    expect(await balance(app, c)).toBe(5_000);
    await Promise.all([client.close(), other.close()]);
  });

  it('a token for another price is refused: the quote is bound to the terms', async () => {
    const { c, client } = await buyer();
    const serverId = await runningServer(app, c);
    const plain = await mcpClient(app.url, c.key);
    const args = { id: serverId, addonId: 'addon-ipv4-4' };
    // A minute before a day of the server's cycle ends: the prorated charge drops two minutes later.
    const { paidUntil } = await app.running.app.prisma.server.findUniqueOrThrow({ where: { id: serverId } });
    const now = await advance(app, 1);
    await advance(app, Math.floor(((paidUntil!.getTime() - now.getTime()) % 86_400_000) / 1000) - 60);
    const first = await callTool(plain, 'server_addon_attach', args);
    const token = expectQuote(first, /^Attach 4 extra IPv4 addresses to server web-1: \$\d+\.\d\d charged now/);
    await advance(app, 120);
    const before = await balance(app, c);
    expectRefused(
      await callTool(plain, 'server_addon_attach', { ...args, confirmation: token }),
      'CONFIRMATION_INVALID',
      /price changed since/,
    );
    expect(await balance(app, c)).toBe(before);
    await Promise.all([client.close(), plain.close()]);
  });

  it('what destroys gets a plain consequence; a start costs nothing and runs at once', async () => {
    const c = await app.customer();
    const serverId = await runningServer(app, c);
    const client = await mcpClient(app.url, c.key);
    const stop = await callTool(client, 'server_power', { id: serverId, action: 'stop' });
    const token = expectQuote(stop, /^Stop server srv_\w+: a hard stop, so what its memory holds/);
    expect((await app.running.app.prisma.server.findUniqueOrThrow({ where: { id: serverId } })).status).toBe('running');
    const stopped = await callTool(client, 'server_power', { id: serverId, action: 'stop', confirmation: token });
    expect(stopped.structuredContent).toMatchObject({ status: 'stopped' });
    const started = await callTool(client, 'server_power', { id: serverId, action: 'start' });
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ status: 'running' });
    const terminate = await callTool(client, 'server_terminate', { id: serverId });
    expectQuote(terminate, /^Terminate server srv_\w+: its disk, snapshots and addresses are destroyed/);
    await client.close();
  });
});

describe('what comes before the question', () => {
  it('a server of another account, or one already terminated, gets the 404 of a missing one, not a question', async () => {
    const owner = await app.customer();
    const stranger = await app.customer();
    const serverId = await runningServer(app, owner);
    const notFound = { statusCode: 404, code: 'NOT_FOUND', message: 'Server not found.' };
    const theirs = await mcpClient(app.url, stranger.key);
    const foreign = await callTool(theirs, 'server_terminate', { id: serverId });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toMatchObject(notFound);
    const missing = await callTool(theirs, 'server_terminate', { id: 'srv_00000000000000000000000000' });
    expect(missing.structuredContent).toMatchObject(notFound);

    const mine = await mcpClient(app.url, owner.key);
    const token = expectQuote(await callTool(mine, 'server_terminate', { id: serverId }), /^Terminate server/);
    const done = await callTool(mine, 'server_terminate', { id: serverId, confirmation: token });
    expect(done.isError).toBeFalsy();
    const again = await callTool(mine, 'server_terminate', { id: serverId });
    expect(again.structuredContent).toMatchObject(notFound);
    await Promise.all([theirs.close(), mine.close()]);
  });

  it('a caller without the scope gets the scope refusal, not a quote', async () => {
    const c = await app.customer({ scopes: ['servers:read', 'billing:read'], walletBalanceUsdCents: 5_000 });
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'purchases,servers' });
    const res = await callTool(client, 'server_order', ORDER);
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
    expect(res.structuredContent.message).toMatch(/lacks the scope "servers:write"/);
    expect(res.structuredContent.confirmation).toBeUndefined();
    await client.close();
  });

  it('input the operation would refuse is refused, without a token', async () => {
    const { c, client } = await buyer();
    const res = await callTool(client, 'server_order', { ...ORDER, productId: 'no-such-plan' });
    expect(res.structuredContent).toMatchObject({ statusCode: 400, param: 'productId' });
    expect(res.structuredContent.confirmation).toBeUndefined();
    expect(await servers(c)).toBe(0);
    await client.close();
  });

  it('confirmation is an argument of the tools that ask only', async () => {
    const c = await app.customer();
    const client = await mcpClient(app.url, c.key);
    const res = await callTool(client, 'servers_list', { confirmation: 'cfm_x.y' });
    expect(res.structuredContent).toMatchObject({ statusCode: 400, message: 'Unknown argument "confirmation".' });
    await client.close();
  });
});

describe('code mode is no side door', () => {
  it('a document selecting an operation that spends or destroys is refused, however spelled; nothing runs', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'graphql' });
    const documents = [
      'mutation { serverOrder(productId: "std-2c-4g-50", label: "x", osTemplate: "debian-12") { chargedUsdCents } }',
      'mutation { o: serverOrder(productId: "std-2c-4g-50", label: "x", osTemplate: "debian-12") { chargedUsdCents } }',
      'mutation M { ...F } fragment F on Mutation { serverOrder(productId: "std-2c-4g-50", label: "x", osTemplate: "debian-12") { chargedUsdCents } }',
    ];
    for (const query of documents) {
      const res = await callTool(client, 'graphql_execute', { query });
      expect(res.isError).toBe(true);
      expect(res.structuredContent.errors).toEqual([
        {
          message: expect.stringMatching(
            /^serverOrder spends the account's money, .* call the tool server_order instead/,
          ),
          extensions: { code: 'CONFIRMATION_REQUIRED', status: 403 },
        },
      ]);
    }
    expect(await servers(c)).toBe(0);
    expect(await balance(app, c)).toBe(5_000);
    await client.close();
  });
});

describe('a client with elicitation: the person is asked', () => {
  /** An SDK client declaring elicitation; `answer` plays the person, and sees each question. */
  async function elicitingClient(key: string, answer: 'accept' | 'decline' | 'cancel', asked: string[]) {
    const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}`, ...PURCHASES } },
      }),
    );
    return client;
  }

  it('accept: the question carries the price; exactly one order, the wallet moves by the quoted amount', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const asked: string[] = [];
    const client = await elicitingClient(c.key, 'accept', asked);
    const ordered = await callTool(client, 'server_order', ORDER);
    expect(asked).toEqual(['Order std-2c-4g-50 for $12.00/month, $12.00 charged now; wallet $50.00 → $38.00.']);
    expect(ordered.isError, JSON.stringify(ordered.structuredContent)).toBeFalsy();
    expect(ordered.structuredContent).toMatchObject({ chargedUsdCents: MONTHLY });
    expect(await servers(c)).toBe(1);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await client.close();
  });

  it('decline or cancel: nothing is done, and the result says so', async () => {
    for (const answer of ['decline', 'cancel'] as const) {
      const c = await app.customer({ walletBalanceUsdCents: 5_000 });
      const asked: string[] = [];
      const client = await elicitingClient(c.key, answer, asked);
      const res = await callTool(client, 'server_order', ORDER);
      expect(asked).toHaveLength(1);
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({
        statusCode: 403,
        code: 'CONFIRMATION_DECLINED',
        message: expect.stringMatching(new RegExp(`^The person did not confirm \\(${answer}\\); nothing was done`)),
      });
      expect(await servers(c)).toBe(0);
      expect(await balance(app, c)).toBe(5_000);
      await client.close();
    }
  });

  it('a client that declared elicitation but cannot answer falls back to the token', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    // Declares the capability, handles no elicitation request: its SDK answers "method not found".
    const client = new Client({ name: 'mute', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${c.key}`, ...PURCHASES } },
      }),
    );
    expectQuote(await callTool(client, 'server_order', ORDER), /^Order std-2c-4g-50/);
    expect(await servers(c)).toBe(0);
    await client.close();
  });
});
