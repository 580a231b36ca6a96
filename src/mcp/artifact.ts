import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { GraphQLSchema } from 'graphql';
import { ALL_SCOPES } from '../scopes.ts';
import { isMcpTool, listOperations } from '../schema/operation.ts';
import {
  buildToolCatalog,
  CODE_MODE_TOOLSET,
  DEFAULT_TOOLSETS,
  IDEMPOTENCY_ARG,
  OPERATION_TOOLSETS,
  OPTIONAL_TOOLSETS,
  type OperationToolset,
  type Tool,
  type ToolSelection,
} from './catalog.ts';
import { codeModeTools } from './code-mode.ts';
import { MCP_INSTRUCTIONS } from './conventions.ts';
import { listedTools } from './server.ts';

/** The size of a text an agent's context holds: characters, and tokens by OpenAI's o200k_base tokenizer (gpt-tokenizer). */
function textSize(text: string) {
  return { characters: text.length, tokens: countTokens(text) };
}

/**
 * The size of tools/list as a client receives it (the JSON-RPC result, for a key with every
 * scope, in 2025-11-25: the tools that run as tasks say so): what an agent's context pays before
 * its first call, on every listing.
 */
function catalogSize(catalog: readonly Tool[], selection: Omit<ToolSelection, 'scopes'>) {
  const result = { tools: listedTools(catalog, { ...selection, scopes: new Set(ALL_SCOPES) }) };
  return { tools: result.tools.length, ...textSize(JSON.stringify(result)) };
}

/** schema/mcp-tools.json: the mapping from operations to tools, why the others are not tools, and the catalogue sizes. */
export function mcpToolsArtifact(schema: GraphQLSchema): object {
  const tools = buildToolCatalog(schema);
  const count = (sets: readonly OperationToolset[]) => tools.filter((t) => sets.includes(t.toolset)).length;
  return {
    defaultToolsets: DEFAULT_TOOLSETS,
    optionalToolsets: [...OPTIONAL_TOOLSETS, CODE_MODE_TOOLSET],
    counts: {
      defaultToolsets: count(DEFAULT_TOOLSETS),
      all: tools.length,
      byToolset: Object.fromEntries(OPERATION_TOOLSETS.map((s) => [s, count([s])])),
    },
    catalogSize: {
      default: catalogSize(tools, {}),
      'default (X-MCP-Output-Schemas)': catalogSize(tools, { outputSchemas: true }),
      [CODE_MODE_TOOLSET]: catalogSize(tools, { toolsets: [CODE_MODE_TOOLSET] }),
      [`${CODE_MODE_TOOLSET} (X-MCP-Readonly)`]: catalogSize(tools, { toolsets: [CODE_MODE_TOOLSET], readOnly: true }),
    },
    // The initialize result's instructions (conventions.ts), sent once per session with operation tools.
    instructionsSize: textSize(MCP_INSTRUCTIONS),
    tools: tools.map((t) => ({
      name: t.name,
      toolset: t.toolset,
      operation: t.operation.meta.rest,
      scope: t.scope,
      description: t.description,
      annotations: t.annotations,
      ...(t.operation.idempotencyKey ? { idempotencyKeyArgument: IDEMPOTENCY_ARG } : {}),
      // Asks a person first over MCP, with the price or the loss in the question (CONFIRMATION_ARG for the token).
      ...(t.operation.meta.consequence ? { consequence: t.operation.meta.consequence.kind } : {}),
      // Runs as a task when asked (2025-11-25, tasks.ts), followed by reading the resource with this tool.
      ...(t.settles ? { taskFollowedBy: t.settles.read.name } : {}),
    })),
    codeModeTools: codeModeTools(false).map((t) => ({
      name: t.name,
      toolset: CODE_MODE_TOOLSET,
      title: t.title,
      annotations: t.annotations,
    })),
    notTools: listOperations(schema)
      .filter((op) => !isMcpTool(op.meta))
      .map((op) => ({ operation: op.meta.rest, reason: op.meta.notTool })),
  };
}
