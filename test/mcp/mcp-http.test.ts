import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolCatalog, DEFAULT_TOOLSETS } from '../../src/mcp/catalog.ts';
import { MCP_INSTRUCTIONS } from '../../src/mcp/conventions.ts';
import { getSchema } from '../../src/schema/index.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { callTool, confirmedCall, mcpClient } from '../helpers/mcp.ts';

const catalog = buildToolCatalog(getSchema());
let app: TestApp;
let c: Customer;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 50_000 });
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'mcp',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
});
afterAll(() => app?.stop());

/** ToolAnnotations: the value a client reads when a hint is absent (MCP specification). */
const SPEC_HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();

describe('MCP over Streamable HTTP', () => {
  it('refuses a missing or bad credential with 401 and WWW-Authenticate', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const headers of [{}, { Authorization: `Bearer svc_${'Z'.repeat(40)}` }] as Record<string, string>[]) {
      const res = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
  });

  it('the default toolsets hold the 85 tools of the spec; mail and account tools are opt-in', () => {
    expect(catalog.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset)).length).toBe(85);
    expect(catalog.filter((t) => t.toolset === 'mail').length).toBe(12);
    // Binary streams are routes, not schema operations, so they never become tools.
    expect(catalog.some((t) => /upload|download/.test(t.name))).toBe(false);
  });

  it('serverInfo has a title, an icon the app serves itself, and the public base URL as website', async () => {
    const client = await mcpClient(app.url, c.key);
    const info = client.getServerVersion()!;
    // PUBLIC_BASE_URL (the test app's is http://127.0.0.1:0: it listens on a port picked later).
    const base = app.running.app.config.publicBaseUrl;
    expect(info).toEqual({
      name: 'cloud-account-api',
      title: 'Cloud Account API',
      version: '1.16',
      websiteUrl: base,
      icons: [{ src: `${base}/favicon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }],
    });
    const icon = await fetch(`${app.url}${new URL(info.icons![0].src).pathname}`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    await client.close();
  });

  it('initializes and lists the default toolsets for a full-scope key, each tool fully described', async () => {
    const client = await mcpClient(app.url, c.key);
    expect(client.getServerVersion()).toMatchObject({ name: 'cloud-account-api', version: '1.16' });
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual(names(catalog.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset))));
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(10);
      expect(tool.inputSchema.type).toBe('object');
      // Listed: every hint that differs from the spec's default and means something (destructive
      // and idempotent only when not read-only); read with the defaults, the catalogue's hints.
      // No openWorldHint is sent: a host reads the spec's default, true.
      const full = catalog.find((t) => t.name === tool.name)!.annotations;
      const meaningful = Object.entries(full).filter(([hint]) => !full.readOnlyHint || hint === 'readOnlyHint');
      const listed = Object.fromEntries(
        meaningful.filter(([hint, value]) => SPEC_HINT_DEFAULTS[hint as keyof typeof SPEC_HINT_DEFAULTS] !== value),
      );
      // Every hint at the spec's default (a tool that spends or destroys, not idempotent): no annotations at all.
      expect(tool.annotations, tool.name).toEqual(Object.keys(listed).length ? listed : undefined);
      if (!full.readOnlyHint)
        expect({ ...SPEC_HINT_DEFAULTS, ...tool.annotations }, tool.name).toEqual({ ...full, openWorldHint: true });
    }
    const terminate = tools.find((t) => t.name === 'server_terminate')!;
    expect(terminate.annotations).toEqual({ idempotentHint: true });
    expect(tools.find((t) => t.name === 'servers_list')!.annotations).toEqual({ readOnlyHint: true });
    // A stop or reboot loses what memory held: server_power asks first (consequence), so it is destructive.
    expect(tools.find((t) => t.name === 'server_power')!.annotations).toBeUndefined();
    expect(tools.find((t) => t.name === 'server_snapshot_create')!.annotations).toEqual({ destructiveHint: false });
    // Destructive exactly where the operation declares what it spends or destroys.
    for (const tool of catalog)
      expect(tool.annotations.destructiveHint, tool.name).toBe(!!tool.operation.meta.consequence);
    const ptr = tools.find((t) => t.name === 'server_ptr_set')!;
    expect(ptr.inputSchema).toMatchObject({ required: expect.arrayContaining(['id', 'ip', 'hostname']) });
    expect(tools.find((t) => t.name === 'server_snapshot_create')!.inputSchema.properties).toHaveProperty(
      'idempotency_key',
    );
    // The listing leaves out additionalProperties: false; an unknown argument is still refused, by name.
    const unknown = await client.callTool({ name: 'server_get', arguments: { id: serverId, verbose: true } });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ statusCode: 400, message: 'Unknown argument "verbose".' });
    await client.close();
  });

  it('initialize carries the conventions the tools share; the listing relies on them', async () => {
    const client = await mcpClient(app.url, c.key);
    expect(client.getInstructions()).toBe(MCP_INSTRUCTIONS);
    // Sent once per session, not per listing: the list envelope and paging, idempotency_key, the
    // busy server's 409, `id`, confirmation, null arguments and errors.
    expect(MCP_INSTRUCTIONS.length).toBeLessThan(1500);
    for (const said of [
      'cursor = nextCursor',
      'idempotency_key',
      '1 to 255 visible ASCII characters',
      '24 h',
      'provisioning, rebooting, restoring, reinstalling or suspended',
      'null',
    ])
      expect(MCP_INSTRUCTIONS).toContain(said);
    const { tools } = await client.listTools();
    const byName = (name: string) => tools.find((t) => t.name === name)!;
    expect(byName('servers_list').description).not.toMatch(/nextCursor/);
    expect(byName('server_power').description).toContain('409 while the server is busy.');
    expect(byName('server_snapshot_create').inputSchema.properties!.idempotency_key).toEqual({ type: 'string' });
    // Optional arguments are listed without null, and an explicit null is still their absence.
    expect(byName('ticket_create').inputSchema.properties!.department).toMatchObject({ type: 'string' });
    const ticket = await client.callTool({
      name: 'ticket_create',
      arguments: { subject: 'Nulls', message: 'Explicit nulls.', department: null, priority: null },
    });
    expect(ticket.isError, JSON.stringify(ticket.structuredContent)).toBeFalsy();
    expect(ticket.structuredContent).toMatchObject({ department: 'general', priority: 'normal' });
    const page = await client.callTool({ name: 'servers_list', arguments: { cursor: null, limit: null } });
    expect(page.structuredContent).toEqual(
      (await client.callTool({ name: 'servers_list', arguments: {} })).structuredContent,
    );
    // No format: int32 is listed; an integer beyond it is still a 400 naming the argument.
    const huge = await client.callTool({
      name: 'pool_quote',
      arguments: { productId: 'pool-fra1', vcpu: 2 ** 40, ram2gb: 1, disk100: 1, ip16: 1 },
    });
    expect(huge.isError).toBe(true);
    expect(huge.structuredContent).toMatchObject({ statusCode: 400 });
    expect(JSON.stringify(huge.structuredContent)).toContain('vcpu');
    await client.close();
  });

  it('lists only what the scopes allow; toolsets and read-only mode narrow the catalogue', async () => {
    const readKey = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:read'] });
    const reader = await mcpClient(app.url, readKey.body.key);
    const readTools = (await reader.listTools()).tools;
    expect(names(readTools)).toEqual(
      names(catalog.filter((t) => t.scope === 'servers:read' && DEFAULT_TOOLSETS.includes(t.toolset))),
    );
    expect(readTools.length).toBeGreaterThan(5);
    await reader.close();

    const webhooksOnly = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'webhooks' });
    expect(names((await webhooksOnly.listTools()).tools)).toEqual(
      names(catalog.filter((t) => t.toolset === 'webhooks')),
    );
    await webhooksOnly.close();

    const optional = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'account' });
    expect(names((await optional.listTools()).tools)).toEqual([
      'account_events_list',
      'account_get',
      'account_ssh_key_add',
      'account_ssh_key_delete',
      'account_ssh_keys_list',
      'account_summary',
      'account_update',
    ]);
    await optional.close();

    const readOnly = await mcpClient(app.url, c.key, { 'X-MCP-Readonly': 'true' });
    const roTools = (await readOnly.listTools()).tools;
    expect(roTools.length).toBeGreaterThan(5);
    expect(roTools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    // A write tool is refused in a read-only session even though the key could call it.
    const refused = await readOnly.callTool({ name: 'server_power', arguments: { id: serverId, action: 'stop' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ statusCode: 403 });
    await readOnly.close();

    const bad = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${c.key}`,
        'X-MCP-Toolsets': 'servers,nope',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/nope/);
  });

  it('calls a read tool and a write tool; results are structured JSON equal to the REST body', async () => {
    const client = await mcpClient(app.url, c.key);
    const list = await callTool(client, 'servers_list', { limit: 10 });
    expect(list.isError).toBeFalsy();
    const rest = await app.call('GET', '/v1/servers?limit=10', { key: c.key });
    expect(list.structuredContent).toEqual(rest.body);
    expect(JSON.parse(list.content[0].text)).toEqual(rest.body);

    // A stop asks first (test/mcp/confirmation.test.ts); a start runs at once.
    const stopped = await confirmedCall(client, 'server_power', { id: serverId, action: 'stop' });
    expect(stopped.structuredContent).toMatchObject({ id: serverId, status: 'stopped' });
    const started = await client.callTool({ name: 'server_power', arguments: { id: serverId, action: 'start' } });
    expect(started.structuredContent).toMatchObject({ status: 'running' });
    await client.close();
  });

  it('errors come back as tool errors with the same status and message as REST', async () => {
    const client = await mcpClient(app.url, c.key);
    const missing = await client.callTool({ name: 'server_get', arguments: { id: 'srv_doesnotexist' } });
    const rest = await app.call('GET', '/v1/servers/srv_doesnotexist', { key: c.key });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual(rest.body);
    const invalid = await client.callTool({ name: 'server_power', arguments: { id: serverId, action: 'explode' } });
    expect(invalid.structuredContent).toEqual(
      (await app.call('POST', `/v1/servers/${serverId}/power/explode`, { key: c.key })).body,
    );
    const unknownArg = await client.callTool({ name: 'servers_list', arguments: { colour: 'red' } });
    expect(unknownArg.structuredContent).toMatchObject({ statusCode: 400, message: expect.stringMatching(/colour/) });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('a destructive tool is not listed and is refused without servers:destroy', async () => {
    const writeKey = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:read', 'servers:write'],
    });
    const client = await mcpClient(app.url, writeKey.body.key);
    expect(names((await client.listTools()).tools)).not.toContain('server_terminate');
    const res = await client.callTool({ name: 'server_terminate', arguments: { id: serverId } });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({
      statusCode: 403,
      error: 'Forbidden',
      message: expect.stringContaining('servers:destroy'),
    });
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: c.key })).body.status).toBe('running');
    await client.close();
  });

  it('idempotent replay: the same idempotency_key returns the first result without running again', async () => {
    const client = await mcpClient(app.url, c.key);
    const before = await app.running.app.prisma.snapshot.count({ where: { serverId } });
    const first = await client.callTool({
      name: 'server_snapshot_create',
      arguments: { id: serverId, name: 'via mcp', idempotency_key: 'mcp-1' },
    });
    const again = await client.callTool({
      name: 'server_snapshot_create',
      arguments: { id: serverId, name: 'via mcp', idempotency_key: 'mcp-1' },
    });
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await app.running.app.prisma.snapshot.count({ where: { serverId } })).toBe(before + 1);
    // The key is shared with REST: the same key with other parameters is refused there too.
    const rest = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: c.key,
      body: { name: 'other' },
      headers: { 'Idempotency-Key': 'mcp-1' },
    });
    expect(rest.status).toBe(422);
    await client.close();
  });

  it('rate limits apply to MCP calls exactly as to REST requests', async () => {
    const key = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:read'] });
    const counter = { requests: 0 };
    const client = await mcpClient(app.url, key.body.key, {}, counter); // every HTTP request the client makes is counted
    let refused: unknown;
    for (let i = 0; i < 130 && !refused; i++) {
      try {
        await client.callTool({ name: 'servers_list', arguments: {} });
      } catch (err) {
        refused = err;
      }
    }
    // The 121st call was the first refused: connecting (initialize, its notification and the GET
    // for a stream: three HTTP requests) spent no point (test/mcp/rate-points.test.ts).
    expect(counter.requests).toBe(3 + 121);
    expect(String(refused)).toMatch(/429|Too Many/);
    await client.close().catch(() => undefined);
  });
});
