import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GRAPHQL_LIMITS } from '../../src/http/graphql/graphql.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { ROOT } from '../helpers/process.ts';

/** MCP code mode (src/mcp/code-mode.ts): the opt-in `graphql` toolset, through the SDK client as an agent would use it. */
let app: TestApp;
let c: Customer;
let serverId: string;
const CODE_MODE = { 'X-MCP-Toolsets': 'graphql' };
const artifact = JSON.parse(fs.readFileSync(new URL('../../schema/mcp-tools.json', import.meta.url), 'utf8'));

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 50_000 });
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'code-mode',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
  const snapshot = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
    key: c.key,
    body: { name: 'before upgrade' },
  });
  expect(snapshot.status, snapshot.text).toBe(200);
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
});
afterAll(() => app?.stop());

const keyWith = async (scopes: string[]) =>
  (await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes })).body.key as string;
const execute = (client: Client, query: string, more: Record<string, unknown> = {}) =>
  callTool(client, 'graphql_execute', { query, ...more });
const search = (client: Client, args: Record<string, unknown>) => callTool(client, 'graphql_schema_search', args);

describe('MCP code mode: the graphql toolset', () => {
  it('is listed only when asked for, with titles and annotations, and its catalogue is small', async () => {
    const plain = await mcpClient(app.url, c.key);
    const defaults = await plain.listTools();
    expect(defaults.tools.some((t) => t.name.startsWith('graphql_'))).toBe(false);
    // The printed sizes (schema/mcp-tools.json, npm run print-schema) are what the SDK client receives.
    expect(JSON.stringify(defaults).length).toBe(artifact.catalogSize.default.characters);
    await expect(
      plain.callTool({ name: 'graphql_execute', arguments: { query: '{ account { id } }' } }),
    ).rejects.toThrow(/Unknown tool/);
    await plain.close();

    const code = await mcpClient(app.url, c.key, CODE_MODE);
    const listed = await code.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['graphql_schema_search', 'graphql_execute']);
    const [searchTool, executeTool] = listed.tools;
    expect(searchTool).toMatchObject({
      title: 'Search the GraphQL schema',
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    expect(executeTool).toMatchObject({
      title: expect.stringMatching(/mutation/),
      annotations: { readOnlyHint: false, destructiveHint: true },
      inputSchema: { required: ['query'] },
    });
    expect(JSON.stringify(listed).length).toBe(artifact.catalogSize.graphql.characters);
    expect(artifact.catalogSize.graphql.characters).toBeLessThan(8000);
    await code.close();

    const combined = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'account,graphql' });
    expect((await combined.listTools()).tools.map((t) => t.name)).toEqual([
      'account_get',
      'account_summary',
      'account_events_list',
      'account_ssh_keys_list',
      'account_update',
      'account_ssh_key_add',
      'account_ssh_key_delete',
      'graphql_schema_search',
      'graphql_execute',
    ]);
    await combined.close();

    const readOnly = await mcpClient(app.url, c.key, { ...CODE_MODE, 'X-MCP-Readonly': 'true' });
    const ro = await readOnly.listTools();
    expect(ro.tools.find((t) => t.name === 'graphql_execute')).toMatchObject({
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    expect(JSON.stringify(ro).length).toBe(artifact.catalogSize['graphql (X-MCP-Readonly)'].characters);
    await readOnly.close();

    // The reference (docs/REFERENCE.md: MCP) quotes the printed sizes, characters and o200k_base tokens.
    const reference = fs.readFileSync(new URL('../../docs/REFERENCE.md', import.meta.url), 'utf8');
    const n = (x: number) => x.toLocaleString('en-US');
    for (const size of Object.values(artifact.catalogSize) as { characters: number; tokens: number }[])
      expect(reference).toContain(`${n(size.characters)} characters (${n(size.tokens)} tokens)`);
    expect(reference).toContain(
      `| ${n(artifact.catalogSize.default.characters)} | ${n(artifact.catalogSize.default.tokens)} |`,
    );
    expect(reference).toContain(
      `${n(artifact.instructionsSize.characters)} characters (${n(artifact.instructionsSize.tokens)} tokens), sent once per session`,
    );
  });

  it('schema search: best match first with arguments and scope, paged; one type whole; only what the scopes allow', async () => {
    const client = await mcpClient(app.url, c.key, CODE_MODE);
    const power = await search(client, { query: 'power' });
    expect(power.isError).toBeFalsy();
    expect(power.structuredContent.data[0]).toEqual({
      kind: 'field',
      coordinate: 'Mutation.serverPower',
      type: 'Server!',
      description: expect.any(String),
      args: [
        { name: 'action', type: 'PowerAction!', description: 'start, stop or reboot.' },
        { name: 'id', type: 'ID!', description: 'The server id.' },
      ],
      scope: 'servers:write',
    });
    expect(power.structuredContent.data.length).toBeLessThanOrEqual(10);

    const whole = await search(client, { query: 'server snapshot', limit: 6 });
    const first = await search(client, { query: 'server snapshot', limit: 3 });
    const second = await search(client, {
      query: 'server snapshot',
      limit: 3,
      cursor: first.structuredContent.nextCursor,
    });
    expect(first.structuredContent).toMatchObject({ hasMore: true, nextCursor: '3' });
    expect([...first.structuredContent.data, ...second.structuredContent.data]).toEqual(whole.structuredContent.data);
    expect((await search(client, { query: 'server snapshot', limit: 3 })).structuredContent).toEqual(
      first.structuredContent,
    );
    expect((await search(client, { query: 'power', limit: 26 })).structuredContent).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/limit/),
    });

    const server = await search(client, { type: 'Server' });
    expect(server.structuredContent).toMatchObject({ kind: 'type', name: 'Server', typeKind: 'OBJECT' });
    const fields = server.structuredContent.fields.map((f: { name: string }) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['id', 'label', 'ips', 'snapshots', 'status']));
    expect(server.structuredContent.fields.find((f: { name: string }) => f.name === 'ips')).toMatchObject({
      type: '[ServerIp!]!',
    });
    expect(
      (await search(client, { type: 'PowerAction' })).structuredContent.values.map((v: { name: string }) => v.name),
    ).toContain('stop');
    await client.close();

    const reader = await mcpClient(app.url, await keyWith(['servers:read']), CODE_MODE);
    const invoices = await search(reader, { query: 'invoice' });
    expect(
      invoices.structuredContent.data.some((m: { coordinate?: string; name?: string }) =>
        /invoice/i.test(m.coordinate ?? m.name ?? ''),
      ),
    ).toBe(false);
    expect((await search(reader, { type: 'Invoice' })).structuredContent).toMatchObject({ statusCode: 404 });
    // A read-only key sees the server reads but no mutation.
    const readerPower = (await search(reader, { query: 'power' })).structuredContent.data;
    expect(readerPower.some((m: { coordinate?: string }) => m.coordinate?.startsWith('Mutation.'))).toBe(false);
    expect((await search(reader, { query: 'servers' })).structuredContent.data[0]).toMatchObject({
      coordinate: 'Query.servers',
      scope: 'servers:read',
    });
    await reader.close();
  });

  it('a nested query is answered in one call, equal to what /graphql returns', async () => {
    const client = await mcpClient(app.url, c.key, CODE_MODE);
    const query =
      'query Estate($limit: Int) { account { email } servers(first: $limit) { nodes { id label status ips { ip primary } snapshots { name status } } pageInfo { hasNextPage } } }';
    const res = await execute(client, query, { variables: { limit: 5 }, operationName: 'Estate' });
    expect(res.isError).toBeFalsy();
    const viaGraphql = await gql(app, query, { key: c.key, variables: { limit: 5 } });
    expect(res.structuredContent).toEqual(viaGraphql.body);
    expect(JSON.parse(res.content[0].text)).toEqual(viaGraphql.body);
    expect(res.structuredContent.data.servers.nodes).toEqual([
      expect.objectContaining({
        id: serverId,
        ips: [expect.objectContaining({ primary: true })],
        snapshots: [expect.objectContaining({ name: 'before upgrade' })],
      }),
    ]);
    await client.close();
  });

  it("scopes: another scope's field is a 403-coded error with no data; a mutation without its scope changes nothing", async () => {
    const reader = await mcpClient(app.url, await keyWith(['servers:read']), CODE_MODE);
    const invoices = await execute(reader, '{ invoices { nodes { id } } }');
    expect(invoices.isError).toBe(true);
    expect(invoices.structuredContent.data).toBeNull();
    expect(invoices.structuredContent.errors).toEqual([
      expect.objectContaining({
        message: 'This credential lacks the scope "billing:read".',
        extensions: { code: 'FORBIDDEN', status: 403 },
      }),
    ]);
    const stop = await execute(reader, `mutation { serverPower(id: "${serverId}", action: stop) { status } }`);
    expect(stop.isError).toBe(true);
    expect(stop.structuredContent.errors[0].extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: c.key })).body.status).toBe('running');
    await reader.close();
  });

  it('read-only sessions refuse mutations before execution; subscriptions are always refused', async () => {
    const readOnly = await mcpClient(app.url, c.key, { ...CODE_MODE, 'X-MCP-Readonly': 'true' });
    const before = await app.running.app.prisma.snapshot.count({ where: { serverId } });
    const stop = await execute(readOnly, `mutation Stop { serverPower(id: "${serverId}", action: stop) { status } }`);
    expect(stop).toMatchObject({
      isError: true,
      structuredContent: {
        errors: [{ message: expect.stringMatching(/read-only/), extensions: { code: 'FORBIDDEN', status: 403 } }],
      },
    });
    const snap = await execute(
      readOnly,
      'query Q { account { id } } mutation M($id: ID!) { serverSnapshotCreate(id: $id, name: "x") { id } }',
      { operationName: 'M', variables: { id: serverId } },
    );
    expect(snap.structuredContent.errors[0].extensions.status).toBe(403);
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: c.key })).body.status).toBe('running');
    expect(await app.running.app.prisma.snapshot.count({ where: { serverId } })).toBe(before);
    // The query of the same document runs.
    expect(
      (
        await execute(readOnly, 'query Q { account { id } } mutation M { serverPower(id: "x", action: stop) { id } }', {
          operationName: 'Q',
        })
      ).structuredContent,
    ).toEqual({ data: { account: { id: c.accountId } } });
    await readOnly.close();

    const writer = await mcpClient(app.url, c.key, CODE_MODE);
    const sub = await execute(writer, 'subscription { events { id } }');
    expect(sub).toMatchObject({
      isError: true,
      structuredContent: {
        errors: [{ message: expect.stringMatching(/subscriptions/), extensions: { code: 'BAD_REQUEST', status: 400 } }],
      },
    });
    await writer.close();
  });

  it('runs mutations when writes are allowed; idempotency_key replays the first result', async () => {
    const client = await mcpClient(app.url, c.key, CODE_MODE);
    const before = await app.running.app.prisma.snapshot.count({ where: { serverId } });
    const doc = 'mutation Snap($id: ID!) { serverSnapshotCreate(id: $id, name: "via code mode") { id name } }';
    const first = await execute(client, doc, { variables: { id: serverId }, idempotency_key: 'code-mode-1' });
    const again = await execute(client, doc, { variables: { id: serverId }, idempotency_key: 'code-mode-1' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent.data.serverSnapshotCreate).toMatchObject({ name: 'via code mode' });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await app.running.app.prisma.snapshot.count({ where: { serverId } })).toBe(before + 1);
    const badKey = await execute(client, doc, { variables: { id: serverId }, idempotency_key: 'line\nbreak' });
    expect(badKey.structuredContent).toEqual({
      errors: [
        {
          message: 'idempotency_key must be 1 to 255 visible ASCII characters.',
          extensions: { code: 'BAD_REQUEST', status: 400 },
        },
      ],
    });
    expect(await app.running.app.prisma.snapshot.count({ where: { serverId } })).toBe(before + 1);
    await client.close();
  });

  it('the /graphql limits apply with the same errors, and each call counts against the rate limit', async () => {
    const client = await mcpClient(app.url, c.key, CODE_MODE);
    const documents = [
      `{ servers { nodes { ips { ${'a { '.repeat(GRAPHQL_LIMITS.maxDepth)}b${' }'.repeat(GRAPHQL_LIMITS.maxDepth)} } } } }`,
      `{ ${Array.from({ length: 16 }, (_, i) => `s${i}: servers { nodes { id } }`).join(' ')} }`,
      `{ ${'account { id } '.repeat(700)} }`,
      '{ servers { nodes { nope } } }',
      '{ servers { ',
    ];
    for (const query of documents) {
      const res = await execute(client, query);
      const viaGraphql = await gql(app, query, { key: c.key });
      expect(viaGraphql.status).toBe(400);
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toEqual(viaGraphql.body);
    }
    expect((await execute(client, documents[0])).structuredContent.errors[0].message).toMatch(
      new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth}`, 'i'),
    );
    await client.close();

    const key = await keyWith(['servers:read']);
    const remaining: number[] = [];
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      return res;
    };
    const counted = new Client({ name: 'rate-test', version: '1' });
    await counted.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        fetch: watching,
        requestInit: { headers: { Authorization: `Bearer ${key}`, ...CODE_MODE } },
      }),
    );
    const rest = async () =>
      Number((await app.call('GET', '/v1/servers', { key })).headers.get('x-ratelimit-remaining'));
    const r1 = await rest();
    await execute(counted, '{ servers { nodes { id } } }');
    await search(counted, { query: 'snapshot' });
    expect(remaining.slice(-2)).toEqual([r1 - 1, r1 - 2]);
    expect(await rest()).toBe(r1 - 3);
    await counted.close();
  });
});

describe('svc mcp (stdio) with SERVICE_MCP_TOOLSETS=graphql', () => {
  it('lists the two tools and runs a document through the API', async () => {
    const client = new Client({ name: 'stdio-code-mode', version: '1' });
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
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graphql_schema_search', 'graphql_execute']);
    const found = await search(client, { query: 'power' });
    expect(found.structuredContent.data[0].coordinate).toBe('Mutation.serverPower');
    const res = await execute(client, '{ account { id } }');
    expect(res.structuredContent).toEqual({ data: { account: { id: c.accountId } } });
    await client.close();
  }, 120_000);
});
