import { isNonNullType, type GraphQLSchema } from 'graphql';
import type { Scope } from '../modules/auth/scopes.ts';
import { jsonSchemaOf, withDescription, type JsonSchema } from '../schema/json-schema.ts';
import { listOperations, type Area, type Operation } from '../schema/operation.ts';

/** Toolsets a client gets without asking; the others only when named in X-MCP-Toolsets. */
export const DEFAULT_TOOLSETS: readonly Area[] = ['servers', 'pools', 'hosting', 'domains', 'billing', 'tickets', 'webhooks'];
export const OPTIONAL_TOOLSETS: readonly Area[] = ['mail', 'account'];
export const ALL_TOOLSETS: readonly Area[] = [...DEFAULT_TOOLSETS, ...OPTIONAL_TOOLSETS];

/** The argument an idempotent tool takes in place of the Idempotency-Key header. */
export const IDEMPOTENCY_ARG = 'idempotency_key';

export interface Tool {
  name: string;
  description: string;
  toolset: Area;
  scope: Scope;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  operation: Operation;
}

/**
 * The MCP tool catalogue, generated from the operation metadata on the schema: one tool per
 * operation that has a JSON result and is not marked `notTool`. No list is kept by hand.
 */
export function buildToolCatalog(schema: GraphQLSchema): Tool[] {
  return listOperations(schema)
    .filter((op) => !op.meta.notTool)
    .map((op) => ({
      name: op.meta.tool,
      description: op.description,
      toolset: op.meta.area,
      scope: op.meta.scope,
      inputSchema: inputSchemaOf(op),
      annotations: {
        readOnlyHint: op.hints.readOnly,
        destructiveHint: op.hints.destructive,
        idempotentHint: op.hints.idempotent,
        openWorldHint: false,
      },
      operation: op,
    }));
}

function inputSchemaOf(op: Operation): Tool['inputSchema'] {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const arg of op.field.args) {
    properties[arg.name] = withDescription(jsonSchemaOf(arg.type, { inline: true }), arg.description);
    if (isNonNullType(arg.type) && arg.defaultValue === undefined) required.push(arg.name);
  }
  if (op.meta.idempotent) {
    properties[IDEMPOTENCY_ARG] = { type: 'string', minLength: 1, maxLength: 255, description: 'Retries with the same key within 24 hours return the first result instead of running again.' };
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export interface ToolSelection {
  scopes: ReadonlySet<string>;
  /** Toolsets asked for (X-MCP-Toolsets); the defaults when absent. */
  toolsets?: readonly Area[];
  /** X-MCP-Readonly: only tools that change nothing. */
  readOnly?: boolean;
}

/** The tools a credential sees: in the chosen toolsets, allowed by its scopes, read-only if asked. */
export function selectTools(tools: readonly Tool[], sel: ToolSelection): Tool[] {
  const sets = new Set(sel.toolsets ?? DEFAULT_TOOLSETS);
  return tools.filter((t) => sets.has(t.toolset) && sel.scopes.has(t.scope) && (!sel.readOnly || t.annotations.readOnlyHint));
}

/** schema/mcp-tools.json: the mapping from operations to tools, and why the others are not tools. */
export function mcpToolsArtifact(schema: GraphQLSchema): object {
  const tools = buildToolCatalog(schema);
  const count = (sets: readonly Area[]) => tools.filter((t) => sets.includes(t.toolset)).length;
  return {
    defaultToolsets: DEFAULT_TOOLSETS,
    optionalToolsets: OPTIONAL_TOOLSETS,
    counts: {
      defaultToolsets: count(DEFAULT_TOOLSETS),
      all: tools.length,
      byToolset: Object.fromEntries(ALL_TOOLSETS.map((s) => [s, count([s])])),
    },
    tools: tools.map((t) => ({
      name: t.name,
      toolset: t.toolset,
      operation: t.operation.meta.rest,
      scope: t.scope,
      description: t.description,
      annotations: t.annotations,
      ...(t.operation.meta.idempotent ? { idempotencyKeyArgument: IDEMPOTENCY_ARG } : {}),
    })),
    notTools: listOperations(schema)
      .filter((op) => op.meta.notTool)
      .map((op) => ({ operation: op.meta.rest, reason: op.meta.notTool })),
  };
}
