import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildToolCatalog,
  CONFIRMATION_ARG,
  DEFAULT_TOOLSETS,
  IDEMPOTENCY_ARG,
  toolOutputSchemaOf,
  type Tool,
} from '../../src/mcp/catalog.ts';
import { MCP_INSTRUCTIONS } from '../../src/mcp/conventions.ts';
import { getSchema } from '../../src/schema/index.ts';
import { ALL_SCOPES } from '../../src/scopes.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { argumentsWithRealIds, collectIds } from '../helpers/example-ids.ts';
import { proveDomain } from '../helpers/domains.ts';
import { activeHosting } from '../helpers/hosting.ts';
import { confirmedCall, mcpClient } from '../helpers/mcp.ts';
import { runningServer } from '../helpers/servers.ts';

// Every tool is called with the MCP SDK client against a live app holding one of each resource;
// each structuredContent that is not an error (errors are exempt, as the MCP spec says) must
// validate against the tool's listed outputSchema and against its strict form (every field
// present, none other), with a real JSON Schema validator.

const catalog = buildToolCatalog(getSchema());
const artifact = JSON.parse(fs.readFileSync(new URL('../../schema/mcp-tools.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ['example'] });
addFormats.default(ajv);
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});

/** Arguments the instructions describe once instead of every tool (src/mcp/conventions.ts). */
const SAID_ONCE = [IDEMPOTENCY_ARG, CONFIRMATION_ARG, 'id'];

let app: TestApp;
let c: Customer;

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true } as never);
  c = await app.customer({ walletBalanceUsdCents: 500_000 });
  await runningServer(app, c);
  await activeHosting(app, c);
  await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: 'teach-example.com', periodYears: 1 });
  await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
    items: [{ description: 'Support hours', amountUsdCents: 4200 }],
  });
  // The examples name example.com for mail and the custom domain: the account proves it controls it.
  await proveDomain(app, c.accountId, 'example.com');
}, 60_000);
afterAll(() => app?.stop());

/** Lists first (they find the ids), then other reads, then changes, then what destroys. */
function order(t: Tool): number {
  if (t.annotations.readOnlyHint) return t.operation.pathParams.length ? 1 : 0;
  return t.annotations.destructiveHint ? 3 : 2;
}

/** The example arguments of a tool, each example id replaced by a real one of the same kind. */
const argumentsFor = (tool: Tool, ids: Map<string, string>) =>
  argumentsWithRealIds(tool.operation, ids, ['cursor', 'limit']);

describe('MCP tools: titles and output schemas', () => {
  it('every tool has a title and an object outputSchema, listed by tools/list', async () => {
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'all', 'X-MCP-Output-Schemas': 'true' });
    const { tools } = await client.listTools();
    expect(tools.length).toBe(catalog.length + 2);
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z][^.]{3,40}$/);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // Every argument is described; idempotency_key, confirmation and a resource's own `id` once, in
      // the server's instructions.
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}))
        if (!SAID_ONCE.includes(name))
          expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
    }
    expect(client.getInstructions()).toContain(IDEMPOTENCY_ARG);
    await client.close();
  });

  it('calling every tool: each result that is not an error validates against its output schema', async () => {
    const client = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'all', 'X-MCP-Output-Schemas': 'true' });
    await client.listTools(); // the SDK client validates structuredContent against the listed schemas from here on
    // Tools that spend or destroy take two calls (quote, then confirmed): on a second key of the
    // account, so the calls fit each credential's 120 per minute.
    const second = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: [...ALL_SCOPES] });
    const confirming = await mcpClient(app.url, second.body.key, {
      'X-MCP-Toolsets': 'all',
      'X-MCP-Output-Schemas': 'true',
    });
    await confirming.listTools();
    const ids = new Map<string, string>();
    const succeeded: string[] = [];
    const failed: string[] = [];
    for (const tool of [...catalog].sort((a, b) => order(a) - order(b))) {
      // A tool that spends or destroys answers its quote first; confirmed, it runs (confirmation.test.ts).
      const args = argumentsFor(tool, ids);
      const result = tool.operation.meta.consequence
        ? await confirmedCall(confirming, tool.name, args)
        : await client.callTool({ name: tool.name, arguments: args });
      if (result.isError) {
        failed.push(`${tool.name}: ${JSON.stringify(result.structuredContent)}`);
        continue;
      }
      for (const [kind, schema] of [
        ['listed', tool.outputSchema],
        ['strict', toolOutputSchemaOf(tool.operation, true)],
      ] as const) {
        const validate = ajv.compile(schema);
        expect(validate(result.structuredContent), `${tool.name} (${kind}): ${ajv.errorsText(validate.errors)}`).toBe(
          true,
        );
      }
      collectIds(result.structuredContent, ids);
      succeeded.push(tool.name);
    }
    // The seeded account answers 60 of the 102 tools; the rest refuse example arguments (isError, exempt).
    expect(succeeded.length, failed.join('\n')).toBeGreaterThanOrEqual(60);
    await Promise.all([client.close(), confirming.close()]);
  }, 120_000);

  it('the default listing leaves output schemas out (its size is mostly them); X-MCP-Output-Schemas lists them; results are the same', async () => {
    // A credential of its own: the test above spends most of the account's minute calling every tool.
    const d = await app.customer();
    const lean = await mcpClient(app.url, d.key);
    const listed = await lean.listTools();
    expect(listed.tools.length).toBe(85);
    expect(listed.tools.filter((t) => t.outputSchema)).toEqual([]);
    const full = await mcpClient(app.url, d.key, { 'X-MCP-Output-Schemas': 'true' });
    const withSchemas = await full.listTools();
    expect(withSchemas.tools.map((t) => t.name)).toEqual(listed.tools.map((t) => t.name));
    expect(withSchemas.tools.every((t) => t.outputSchema?.type === 'object')).toBe(true);
    // The printed sizes (schema/mcp-tools.json) are what the SDK client receives, in characters
    // and in tokens of OpenAI's o200k_base (gpt-tokenizer).
    const size = (x: unknown) => ({ characters: JSON.stringify(x).length, tokens: countTokens(JSON.stringify(x)) });
    expect(size(listed)).toEqual({
      characters: artifact.catalogSize.default.characters,
      tokens: artifact.catalogSize.default.tokens,
    });
    expect(size(withSchemas)).toEqual({
      characters: artifact.catalogSize['default (X-MCP-Output-Schemas)'].characters,
      tokens: artifact.catalogSize['default (X-MCP-Output-Schemas)'].tokens,
    });
    expect(artifact.instructionsSize).toEqual({
      characters: MCP_INSTRUCTIONS.length,
      tokens: countTokens(MCP_INSTRUCTIONS),
    });
    // The issue: the default tools/list is under 10,000 tokens without losing any tool. It keeps
    // all 85 default tools, each with every argument of its operation (and idempotency_key where
    // it honours one), every required one and every description; what many tools share is said
    // once in the instructions (src/mcp/conventions.ts).
    expect(size(listed).tokens).toBeLessThan(10_000);
    expect(lean.getInstructions()).toBe(MCP_INSTRUCTIONS);
    const defaults = catalog.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset));
    expect(defaults.length).toBe(85);
    expect(listed.tools.map((t) => t.name).sort()).toEqual(defaults.map((t) => t.name).sort());
    for (const tool of defaults) {
      const { args } = tool.operation.field;
      const listedTool = listed.tools.find((t) => t.name === tool.name)!;
      const { properties = {}, required = [] } = listedTool.inputSchema;
      expect(Object.keys(properties).sort(), tool.name).toEqual(
        [
          ...args.map((a) => a.name),
          ...(tool.operation.idempotencyKey ? [IDEMPOTENCY_ARG] : []),
          ...(tool.operation.meta.consequence ? [CONFIRMATION_ARG] : []),
        ].sort(),
      );
      expect([...required].sort(), tool.name).toEqual(
        args
          .filter((a) => isNonNullType(a.type) && a.defaultValue === undefined)
          .map((a) => a.name)
          .sort(),
      );
      for (const [name, property] of Object.entries(properties))
        if (!SAID_ONCE.includes(name))
          expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      expect(listedTool.title, tool.name).toBe(tool.operation.meta.summary);
      expect(listedTool.description, tool.name).toBe(tool.description);
    }
    const a = await lean.callTool({ name: 'servers_list', arguments: {} });
    const b = await full.callTool({ name: 'servers_list', arguments: {} });
    expect(a.structuredContent).toEqual(b.structuredContent);
    expect(a.isError).toBeFalsy();
    await lean.close();
    await full.close();

    const bad = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${d.key}`,
        'X-MCP-Output-Schemas': 'maybe',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ statusCode: 400, message: 'X-MCP-Output-Schemas must be true or false.' });
  });

  it("a nullable type is anyOf with null in every schema MCP lists, never a type array; OpenAPI keeps 3.1's array", async () => {
    const d = await app.customer();
    const client = await mcpClient(app.url, d.key, { 'X-MCP-Toolsets': 'all', 'X-MCP-Output-Schemas': 'true' });
    const { tools } = await client.listTools();
    await client.close();
    const typeArrays: string[] = [];
    let nullBranches = 0;
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${at}[${i}]`);
        return;
      }
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (Array.isArray(schema.type)) typeArrays.push(at);
      if (Array.isArray(schema.anyOf) && schema.anyOf.some((b) => (b as { type?: unknown }).type === 'null')) {
        nullBranches++;
        // The value's own keywords are in its branch; only annotations stay beside anyOf.
        expect(
          Object.keys(schema).filter((k) => k !== 'anyOf' && k !== 'description'),
          at,
        ).toEqual([]);
        expect((schema.anyOf as unknown[]).length, at).toBe(2);
      }
      for (const [k, v] of Object.entries(schema)) walk(v, `${at}.${k}`);
    };
    for (const tool of tools) walk({ input: tool.inputSchema, output: tool.outputSchema }, tool.name);
    expect(typeArrays).toEqual([]);
    expect(nullBranches).toBeGreaterThan(150);
    // The OpenAPI document, from the same generator, keeps the array form.
    const openApi = await (await fetch(`${app.url}/v1/openapi.json`)).text();
    expect(openApi).toContain('"type":["string","null"]');
  });

  it('a wrong structuredContent fails the validator (the check can fail)', () => {
    const tool = catalog.find((t) => t.name === 'server_get')!;
    const validate = ajv.compile(toolOutputSchemaOf(tool.operation, true));
    expect(validate({ id: 'srv_x' })).toBe(false);
    expect(ajv.compile(tool.outputSchema)({ id: 42 })).toBe(false);
  });
});
