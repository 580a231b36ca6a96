import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations } from '../../src/schema/operation.ts';
import { getSchema } from '../../src/schema/index.ts';
import { providerServerLog } from '../../src/provider/simulated.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import { callTool, mcpClient, type ToolResult } from '../helpers/mcp.ts';

/**
 * The MCP trust boundary held against attacks: what is not a tool (operation metadata
 * `notTool`) is refused on every MCP path, code mode included; read-only is decided on the
 * operation that executes; JSON-RPC batches and foreign browser origins are refused.
 */
let app: TestApp;
let c: Customer;
let serverId: string;
let hostingId: string;
const CODE_MODE = { 'X-MCP-Toolsets': 'graphql' };

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 50_000 });
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'boundary',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
  hostingId = await activeHosting(app, c);
});
afterAll(() => app?.stop());

const keyWith = async (scopes: string[]) =>
  (await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes })).body.key as string;
const execute = (client: Client, query: string, more: Record<string, unknown> = {}) =>
  callTool(client, 'graphql_execute', { query, ...more });
const ssoTokens = () => app.running.app.prisma.ssoToken.count({ where: { serverId } });
const providerLog = () => providerServerLog(app.running.app.prisma, serverId);
const snapshots = () => app.running.app.prisma.snapshot.count({ where: { serverId } });

function expectNotATool(res: ToolResult, field: string) {
  expect(res.isError).toBe(true);
  expect(res.structuredContent.data).toBeUndefined();
  expect(res.structuredContent.errors).toEqual([
    {
      message: expect.stringMatching(new RegExp(`^${field} is not available over MCP`)),
      extensions: { code: 'FORBIDDEN', status: 403 },
    },
  ]);
}

describe('MCP: what is not a tool is refused on every path', () => {
  it('the exclusion is the operation metadata: every operation without a tool is neither listed nor searchable', async () => {
    const excluded = listOperations(getSchema())
      .filter((op) => op.meta.notTool)
      .map((op) => op.name);
    expect(excluded).toEqual(
      expect.arrayContaining(['serverSso', 'serverPasswordReset', 'hostingSshLaunch', 'hostingGitWebhook']),
    );
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'all' });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const op of listOperations(getSchema()).filter((o) => o.meta.notTool))
      expect(tools).not.toContain(op.meta.tool);
    for (const name of excluded) {
      const found = await callTool(client, 'graphql_schema_search', { query: name, limit: 25 });
      const coordinates = found.structuredContent.data.map((m: { coordinate?: string }) => m.coordinate);
      expect(coordinates).not.toContain(`Mutation.${name}`);
      expect(coordinates).not.toContain(`Query.${name}`);
    }
    await client.close();
  });

  it('a servers:read key cannot mint a dashboard login link through code mode (no escalation)', async () => {
    const client = await mcpClient(app.url, await keyWith(['servers:read']), CODE_MODE);
    const before = await ssoTokens();
    expectNotATool(await execute(client, `mutation { serverSso(id: "${serverId}") { url } }`), 'serverSso');
    // Hidden behind an alias, a named fragment, an inline fragment, a skipped sibling, or a second operation.
    const disguised = [
      { query: `mutation { link: serverSso(id: "${serverId}") { url } }` },
      { query: `mutation { ...F } fragment F on Mutation { serverSso(id: "${serverId}") { url } }` },
      { query: `mutation { ... on Mutation { serverSso(id: "${serverId}") { url } } }` },
      { query: `mutation M($id: ID!) { serverSso(id: $id) { url } }`, variables: { id: serverId } },
      { query: `query Q { account { id } } mutation M { serverSso(id: "${serverId}") { url } }`, operationName: 'M' },
    ];
    for (const { query, ...more } of disguised) expectNotATool(await execute(client, query, more), 'serverSso');
    expect(
      (await execute(client, `mutation { serverSso(id: "${serverId}") { url } }`, { operationName: '' })).isError,
    ).toBe(true);
    expect(await ssoTokens()).toBe(before);
    // The same key still mints one over REST, for a person at a browser: only MCP leaves it out.
    expect((await app.call('POST', `/v1/servers/${serverId}/sso`, { key: c.key })).status).toBe(200);
    expect(await ssoTokens()).toBe(before + 1);
    await client.close();
  });

  it('no root password, git-webhook secret or browser-SSH session through graphql_execute', async () => {
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'graphql' });
    const log = await providerLog();
    expectNotATool(
      await execute(client, `mutation { serverPasswordReset(id: "${serverId}") { rootPassword } }`),
      'serverPasswordReset',
    );
    expect(await providerLog()).toBe(log);

    expectNotATool(
      await execute(client, `{ hostingGitWebhook(id: "${hostingId}") { url secret } }`),
      'hostingGitWebhook',
    );
    // A document mixing an allowed field with an excluded one runs neither.
    const mixed = await execute(client, `{ account { id } hostingGitWebhook(id: "${hostingId}") { secret } }`);
    expectNotATool(mixed, 'hostingGitWebhook');

    const access = await app.call('POST', `/v1/hosting/${hostingId}/ssh-terminal/access`, {
      key: await keyWith(MANAGE),
    });
    expect(access.status, access.text).toBe(200);
    expectNotATool(
      await execute(client, `mutation { hostingSshLaunch(id: "${hostingId}") { url } }`),
      'hostingSshLaunch',
    );
    const after = await app.call('GET', `/v1/hosting/${hostingId}/ssh-terminal/access`, { key: c.key });
    expect(after.status, after.text).toBe(200);
    expect(after.body.session ?? null).toBeNull();
    await client.close();
  });

  it('over stdio (svc mcp) the same refusal comes back', async () => {
    const { Client: SdkClient } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { ROOT } = await import('../helpers/process.ts');
    const client = new SdkClient({ name: 'stdio-boundary', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/svc.js', 'mcp'],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH!,
          SERVICE_API_KEY: c.key,
          SERVICE_BASE_URL: app.url,
          SERVICE_MCP_TOOLSETS: 'graphql',
        },
        stderr: 'pipe',
      }),
    );
    const before = await ssoTokens();
    expectNotATool(await execute(client, `mutation { serverSso(id: "${serverId}") { url } }`), 'serverSso');
    expect(await ssoTokens()).toBe(before);
    // The API's unknown-tool error comes through as the API words it.
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: Error) => e);
    expect((error as Error).message).toBe('MCP error -32602: Unknown tool: no_such_tool');
    await client.close();
  }, 120_000);
});

describe('MCP read-only is decided on the operation that executes', () => {
  it('an empty operationName does not smuggle a mutation past X-MCP-Readonly', async () => {
    const client = await mcpClient(app.url, c.key, { ...CODE_MODE, 'X-MCP-Readonly': 'true' });
    const before = await snapshots();
    const mutation = `mutation { serverSnapshotCreate(id: "${serverId}", name: "smuggled") { id } }`;
    expect(await execute(client, mutation)).toMatchObject({
      isError: true,
      structuredContent: {
        errors: [{ message: expect.stringMatching(/read-only/), extensions: { code: 'FORBIDDEN', status: 403 } }],
      },
    });
    // "" is answered exactly as POST /graphql answers it: no operation is chosen, nothing runs.
    const empty = await execute(client, mutation, { operationName: '' });
    const viaGraphql = await app.call('POST', '/graphql', {
      key: c.key,
      body: { query: '{ account { id } }', operationName: '' },
    });
    expect(viaGraphql.status).toBe(400);
    expect(empty).toMatchObject({ isError: true, structuredContent: { errors: [{ extensions: { status: 400 } }] } });
    expect(empty.structuredContent.errors[0].message).toBe(viaGraphql.body.errors[0].message);
    expect(await snapshots()).toBe(before);
    await client.close();

    // The refusal happens where the executor runs, whatever the writer's session chose to pre-check.
    const writer = await mcpClient(app.url, c.key, CODE_MODE);
    const written = await execute(writer, mutation, { operationName: '' });
    expect(written.isError).toBe(true);
    expect(await snapshots()).toBe(before);
    await writer.close();
  });
});

describe('MCP transport refusals', () => {
  const post = (body: unknown, headers: Record<string, string> = {}, key = c.key) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${key}`,
        'MCP-Protocol-Version': '2025-06-18',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const snapshotCall = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'server_snapshot_create', arguments: { id: serverId, name: `batch ${id}` } },
  });

  it('a JSON-RPC batch is refused whole with 400 and runs nothing', async () => {
    const before = await snapshots();
    const single = await post(snapshotCall(0));
    expect(single.status, await single.clone().text()).toBe(200);
    expect(await snapshots()).toBe(before + 1);

    const res = await post(Array.from({ length: 100 }, (_, i) => snapshotCall(i + 1)));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batch/i) },
    });
    expect(await snapshots()).toBe(before + 1);
  });

  it('a browser page from another origin gets 403 (DNS rebinding); no Origin, ours or a loopback one is served', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const before = await snapshots();
    for (const origin of ['http://evil.example', 'null', `${app.url}.evil.example`, 'ftp://127.0.0.1']) {
      const res = await post(snapshotCall(7), { Origin: origin });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toMatchObject({
        statusCode: 403,
        error: 'Forbidden',
        message: expect.stringMatching(/Origin/),
      });
    }
    expect(await snapshots()).toBe(before);
    expect((await post(list)).status).toBe(200);
    // At a loopback Host (fetch sends 127.0.0.1:<port>): the public origin, and any loopback
    // origin, http or https, on any port (a local inspector's page).
    for (const origin of [
      app.url,
      app.url.replace('127.0.0.1', 'localhost'),
      app.url.replace('127.0.0.1', 'localhost').replace(/:\d+$/, ':6274'),
      app.url.replace('http:', 'https:'),
      'http://[::1]:3000',
    ])
      expect((await post(list, { Origin: origin })).status, origin).toBe(200);
  });

  it('an unknown tool is a JSON-RPC -32602 whose message says the code once', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'no_such_tool', arguments: {} },
    });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32602, message: 'Unknown tool: no_such_tool' },
    });
    const client = await mcpClient(app.url, c.key);
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: Error) => e);
    expect(String((error as Error).message)).toBe('MCP error -32602: Unknown tool: no_such_tool');
    await client.close();
  });
});
