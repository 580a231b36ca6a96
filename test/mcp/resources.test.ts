import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolCatalog } from '../../src/mcp/catalog.ts';
import { getSchema } from '../../src/schema/index.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { runningServer } from '../helpers/servers.ts';

const catalog = buildToolCatalog(getSchema());
let app: TestApp;
let c: Customer;
let client: Client;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 50_000 });
  serverId = await runningServer(app, c, { productId: 'std-1c-2g-50', label: 'resources', osTemplate: 'debian-12' });
  client = await mcpClient(app.url, c.key);
});
afterAll(async () => {
  await client?.close();
  await app?.stop();
});

const text = (read: Awaited<ReturnType<Client['readResource']>>) => {
  const [content] = read.contents;
  return 'text' in content ? content.text : '';
};

describe('MCP resources: the account as the REST reads see it', () => {
  it('lists the reads that need no arguments as resources and those with path ids as templates', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, completions: {} });
    const { resources } = await client.listResources();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['cloud-account:///v1/servers', 'cloud-account:///v1/billing/invoices']),
    );
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['cloud-account:///v1/servers/{id}', 'cloud-account:///v1/tickets/{id}']),
    );
    // Each is a read tool of the catalogue, named and described as that tool.
    for (const r of [...resources, ...resourceTemplates]) {
      const tool = catalog.find((t) => t.name === r.name)!;
      expect(tool.annotations.readOnlyHint, r.name).toBe(true);
      expect(r).toMatchObject({ title: tool.title, mimeType: 'application/json' });
    }
    // A list with a required argument beyond its path is neither: there is nothing to read without it.
    expect(resources.every((r) => !r.uri.includes('{'))).toBe(true);
  });

  it('reads the same body as REST, for a list and for one server', async () => {
    for (const path of ['/servers', `/servers/${serverId}`, '/billing/invoices']) {
      const rest = await app.call('GET', `/v1${path}`, { key: c.key });
      expect(rest.status).toBe(200);
      const uri = `cloud-account:///v1${path}`;
      const read = await client.readResource({ uri });
      expect(read.contents).toHaveLength(1);
      expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      expect(JSON.parse(text(read)), path).toEqual(rest.body);
    }
  });

  it("answers a missing server with MCP's resource-not-found and the REST error object", async () => {
    const uri = 'cloud-account:///v1/servers/srv_doesnotexist';
    const error = await client.readResource({ uri }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
    expect((error as McpError).data).toMatchObject({ uri, statusCode: 404, error: 'Not Found' });
    // The code once in the message: the client adds "MCP error -32002: " to what the server sent.
    expect((error as McpError).message).toMatch(/^MCP error -32002: Server not found/);
    const unknown = await client.readResource({ uri: 'cloud-account:///v1/nothing-here' }).catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(-32002);
    const malformed = await client
      .readResource({ uri: 'cloud-account:///v1/servers/%E0%A4%A' })
      .catch((e: unknown) => e);
    expect((malformed as McpError).code).toBe(-32602);
  });

  it("links a tool's answer to the resource it is, and the link reads the same object", async () => {
    const created = await callTool(client, 'ticket_create', { subject: 'Link me', message: 'Where is my ticket?' });
    expect(created.isError, JSON.stringify(created.structuredContent)).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    const link = (created.content as unknown[]).find((c) => (c as { type: string }).type === 'resource_link');
    expect(link).toEqual({
      type: 'resource_link',
      uri: `cloud-account:///v1/tickets/${id}`,
      name: 'ticket_get',
      title: catalog.find((t) => t.name === 'ticket_get')!.title,
      mimeType: 'application/json',
    });
    const read = await client.readResource({ uri: (link as { uri: string }).uri });
    expect(JSON.parse(text(read))).toEqual(created.structuredContent);
    // The resource's own read, and a list, link to nothing.
    for (const [name, args] of [
      ['ticket_get', { id }],
      ['tickets_list', {}],
    ] as const) {
      const answer = await callTool(client, name, args);
      expect(
        answer.content.map((c) => c.type),
        name,
      ).toEqual(['text']);
    }
  });

  it('completes server ids from the list, by prefix', async () => {
    const ref = { type: 'ref/resource' as const, uri: 'cloud-account:///v1/servers/{id}' };
    const all = await client.complete({ ref, argument: { name: 'id', value: '' } });
    expect(all.completion.values).toContain(serverId);
    const prefixed = await client.complete({ ref, argument: { name: 'id', value: serverId.slice(0, -2) } });
    expect(prefixed.completion.values).toEqual([serverId]);
    const none = await client.complete({ ref, argument: { name: 'id', value: 'zzz' } });
    expect(none.completion.values).toEqual([]);
  });

  it("filters resources by the credential's scopes, as tools are: outside them, neither listed nor read", async () => {
    const billing = await app.customer({ scopes: ['billing:read'] });
    const narrow = await mcpClient(app.url, billing.key);
    try {
      const { resources } = await narrow.listResources();
      const { resourceTemplates } = await narrow.listResourceTemplates();
      const scopes = new Set(
        [...resources, ...resourceTemplates].map((r) => catalog.find((t) => t.name === r.name)!.scope),
      );
      expect([...scopes]).toEqual(['billing:read']);
      expect(resources.map((r) => r.uri)).toContain('cloud-account:///v1/billing/invoices');
      // Another account's server, and the servers list, are not this key's to read.
      for (const uri of [`cloud-account:///v1/servers/${serverId}`, 'cloud-account:///v1/servers']) {
        const error = await narrow.readResource({ uri }).catch((e: unknown) => e);
        expect((error as McpError).code, uri).toBe(-32002);
      }
      const completion = await narrow.complete({
        ref: { type: 'ref/resource', uri: 'cloud-account:///v1/servers/{id}' },
        argument: { name: 'id', value: '' },
      });
      expect(completion.completion.values).toEqual([]);
    } finally {
      await narrow.close();
    }
  });
});
