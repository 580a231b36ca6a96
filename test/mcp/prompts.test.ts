import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolCatalog } from '../../src/mcp/catalog.ts';
import { WORKFLOW_PROMPTS } from '../../src/mcp/prompts.ts';
import { getSchema } from '../../src/schema/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';

const catalog = buildToolCatalog(getSchema());
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('MCP prompts: the daily workflows', () => {
  it('name only tools of the catalogue, and each names in its text the tools it declares', () => {
    const names = new Set(catalog.map((t) => t.name));
    for (const prompt of WORKFLOW_PROMPTS) {
      const text = prompt.text({ hosting_id: 'hst-x', need: 'a web server', label: 'web' });
      for (const tool of prompt.tools) {
        expect(names.has(tool), `${prompt.name}: ${tool}`).toBe(true);
        expect(text, `${prompt.name}: ${tool}`).toContain(tool);
      }
      // Any other snake_case tool-like name in the text is a tool too.
      for (const word of text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [])
        if (!['idempotency_key', 'hosting_id'].includes(word))
          expect(names.has(word), `${prompt.name} mentions ${word}`).toBe(true);
    }
  });

  it('lists the three workflows to a full-scope key and fills in their arguments', async () => {
    const c = await app.customer();
    const client = await mcpClient(app.url, c.key);
    try {
      expect(client.getServerCapabilities()).toMatchObject({ prompts: {} });
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['order_server', 'pay_due_invoices', 'diagnose_deploy']);
      const got = await client.getPrompt({ name: 'diagnose_deploy', arguments: { hosting_id: 'hst_abc' } });
      expect(got.messages).toHaveLength(1);
      expect(got.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
      expect((got.messages[0].content as { text: string }).text).toContain('hosting_git_status with id hst_abc');
      const missing = await client.getPrompt({ name: 'diagnose_deploy', arguments: {} }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(McpError);
      expect((missing as McpError).code).toBe(-32602);
      expect((missing as McpError).message).toMatch(/needs hosting_id/);
    } finally {
      await client.close();
    }
  });

  it('offers a workflow only when the scopes reach every tool it names', async () => {
    const c = await app.customer({ scopes: ['billing:read', 'billing:write'] });
    const client = await mcpClient(app.url, c.key);
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['pay_due_invoices']);
      const refused = await client.getPrompt({ name: 'order_server' }).catch((e: unknown) => e);
      expect((refused as McpError).code).toBe(-32602);
    } finally {
      await client.close();
    }
  });
});
