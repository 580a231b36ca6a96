import { isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { AREAS } from '../modules/areas.ts';
import type { Scope } from '../scopes.ts';
import { inputSchemaOf, jsonSchemaOf, type JsonSchema } from '../schema/json-schema.ts';
import { isMcpTool, listOperations, type Area, type Operation } from '../schema/operation.ts';
import type { ExtraToolset } from '../modules/areas.ts';
import { restView } from '../schema/rest-view.ts';
import { toolDescription } from './conventions.ts';
import { untrustedPaths } from './untrusted.ts';

/** Code mode (src/mcp/code-mode.ts): schema search and a GraphQL document runner instead of one tool per operation. */
export const CODE_MODE_TOOLSET = 'graphql';
/** A toolset of operation tools: an area's own, or one a manifest declares beside it (`purchases`). */
export type OperationToolset = Area | ExtraToolset;
/** An operation toolset, or code mode. */
export type Toolset = OperationToolset | typeof CODE_MODE_TOOLSET;

/** Every operation toolset, in MCP's order of them (each manifest's `api.toolset` and `toolsets`). */
const TOOLSETS = AREAS.flatMap((a) => [
  ...('api' in a ? [{ name: a.name as OperationToolset, ...a.api.toolset }] : []),
  ...('toolsets' in a ? Object.entries(a.toolsets).map(([name, t]) => ({ name: name as OperationToolset, ...t })) : []),
]).sort((x, y) => x.order - y.order);
/** Toolsets a client gets without asking; the others only when named in X-MCP-Toolsets. */
export const DEFAULT_TOOLSETS: readonly OperationToolset[] = TOOLSETS.filter((t) => t.offered === 'by default').map(
  (t) => t.name,
);
export const OPTIONAL_TOOLSETS: readonly OperationToolset[] = TOOLSETS.filter((t) => t.offered === 'on request').map(
  (t) => t.name,
);
export const OPERATION_TOOLSETS: readonly OperationToolset[] = [...DEFAULT_TOOLSETS, ...OPTIONAL_TOOLSETS];
export const ALL_TOOLSETS: readonly Toolset[] = [...OPERATION_TOOLSETS, CODE_MODE_TOOLSET];

/** The argument an idempotent tool takes in place of the Idempotency-Key header. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
/** The argument a tool that spends or destroys takes: the token of a quote a person agreed to (src/http/executor/stages/confirm.ts). */
export const CONFIRMATION_ARG = 'confirmation';

export interface Tool {
  name: string;
  /** The operation's summary. */
  title: string;
  /** The operation's description, its shared sentences shortened (conventions.ts: the server's instructions say them once). */
  description: string;
  toolset: OperationToolset;
  scope: Scope;
  inputSchema: JsonSchema & { type: 'object' };
  /** The JSON Schema of structuredContent (tool-results.ts): the return type's, or `{ result }` around a list or scalar. */
  outputSchema: JsonSchema & { type: 'object' };
  /** structuredContent is `{ result: <value> }` (a list or scalar return type), not the value itself. */
  wrapsResult: boolean;
  /**
   * No openWorldHint: `false` on each of the 85 default tools was ~500 tokens of every listing.
   * A host reads the spec's default (true), the cautious reading (webhooks and git deploys do
   * reach addresses outside the account).
   */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  /** Where its structuredContent can hold text other people wrote (untrusted.ts), as JSONPaths. */
  untrusted: readonly string[];
  /** The work it starts goes on after it answers: it may run as a task, followed by `read` (tasks.ts). */
  settles?: { read: Tool; at?: string; pending: ReadonlySet<string> };
  operation: Operation;
}

/**
 * The MCP tool catalogue, generated from the operation metadata on the schema: one tool per
 * operation that has a JSON result and is not marked `notTool`. No list is kept by hand. From
 * the REST view of the schema: a tool answers the REST body, without the graph's edges.
 */
export function buildToolCatalog(schema: GraphQLSchema): Tool[] {
  const tools: Tool[] = listOperations(restView(schema))
    .filter((op) => isMcpTool(op.meta))
    .map((op) => ({
      name: op.meta.tool,
      title: op.meta.summary,
      description: toolDescription(op.description),
      toolset: op.meta.toolset ?? op.meta.area,
      scope: op.meta.scope,
      inputSchema: toolInputSchemaOf(op),
      outputSchema: toolOutputSchemaOf(op),
      wrapsResult: wrapsResult(op),
      annotations: {
        readOnlyHint: op.hints.readOnly,
        destructiveHint: op.hints.destructive,
        idempotentHint: op.hints.idempotent,
      },
      untrusted: untrustedPaths(op.field.type, wrapsResult(op) ? '$.result' : '$'),
      operation: op,
    }));
  const byOperation = new Map(tools.map((t) => [t.operation.name, t]));
  for (const tool of tools) {
    const settles = tool.operation.meta.settles;
    if (!settles) continue;
    const read = byOperation.get(settles.read);
    if (!read?.annotations.readOnlyHint || !read.operation.argumentNames.has('id'))
      throw new Error(`${tool.name}: settles is followed by ${settles.read}, which is no read tool taking an id`);
    tool.settles = { read, ...(settles.at ? { at: settles.at } : {}), pending: new Set(settles.pending) };
  }
  return tools;
}

function toolInputSchemaOf(op: Operation): Tool['inputSchema'] {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const arg of op.field.args) {
    const schema = inputSchemaOf(arg, { inline: true });
    // An optional argument's `null` says nothing its absence does not (the instructions say null
    // is the same as leaving it out): its type is the plain one. Inside input objects a null
    // can mean something ("or null to return the address"), so nested types keep it.
    const listed = isNonNullType(arg.type) ? schema : withoutNull(schema);
    // "The server id." on 70 tools: the instructions say once what `id` is (conventions.ts).
    const { description, ...undescribed } = listed;
    properties[arg.name] = arg.name === 'id' && ID_DESCRIPTION.test(String(description ?? '')) ? undescribed : listed;
    if (isNonNullType(arg.type) && arg.defaultValue === undefined) required.push(arg.name);
  }
  if (op.idempotencyKey) {
    // What it does and its length are in the server's instructions (conventions.ts), once: here
    // 25 descriptions and bounds would cost an agent ~475 tokens on every listing.
    properties[IDEMPOTENCY_ARG] = { type: 'string' };
  }
  // Only on the tools that ask first; what it is and how it is got is in the instructions, once.
  if (op.meta.consequence) properties[CONFIRMATION_ARG] = { type: 'string' };
  return nullAsAnyOf(
    listedInputSchema({
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
    }),
  ) as Tool['inputSchema'];
}

/** An `id` argument described only as the id of the resource its tool is named after. */
const ID_DESCRIPTION = /^The [\w -]+ id\.$/;

/** `type: [t, 'null']` as `type: t`. */
function withoutNull(schema: JsonSchema): JsonSchema {
  const { type } = schema;
  return Array.isArray(type) && type.length === 2 && type[1] === 'null' ? { ...schema, type: type[0] } : schema;
}

/** Keywords that say something of the whole value, null included: they stay beside `anyOf`. */
const ANNOTATIONS: ReadonlySet<string> = new Set(['title', 'description', 'default', 'examples', 'deprecated']);

/**
 * A nullable value as `anyOf: [{type: t, …}, {type: 'null'}]` instead of `type: [t, 'null']`,
 * at every depth: the array form is valid JSON Schema, but stricter hosts refuse it (the
 * Inspector's --strict warns on each). The value's keywords go into its branch (an `enum`
 * without its `null`), annotations stay outside. MCP's schemas only: the OpenAPI document,
 * from the same generator (src/schema/json-schema.ts), keeps 3.1's array form.
 */
function nullAsAnyOf(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, nullAsAnyOf(v)]),
      );
    else if (key === 'items' && value && typeof value === 'object') out[key] = nullAsAnyOf(value as JsonSchema);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map(nullAsAnyOf);
    else out[key] = value;
  }
  const { type, ...rest } = out;
  if (!Array.isArray(type) || !type.includes('null')) return out;
  const others = type.filter((t) => t !== 'null');
  const branch: JsonSchema = { type: others.length === 1 ? others[0] : others };
  const outside: JsonSchema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (ANNOTATIONS.has(key)) outside[key] = value;
    else branch[key] = key === 'enum' && Array.isArray(value) ? value.filter((v) => v !== null) : value;
  }
  return { anyOf: [branch, { type: 'null' }], ...outside };
}

/**
 * An input schema as tools/list carries it, without what says nothing an agent needs:
 * `additionalProperties: false` (the server answers an unknown argument with a 400 naming it),
 * `format: int32` (GraphQL's Int; a value beyond it is a 400 naming the argument, and the
 * integers the API takes are counts and cents far inside it), and in a description the range
 * the bounds already state (withoutStatedRange).
 */
function listedInputSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'format' && value === 'int32') continue;
    if (key === 'description' && typeof value === 'string') {
      out[key] = withoutStatedRange(value, schema);
      continue;
    }
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, listedInputSchema(v)]),
      );
    else if (key === 'items' && value && typeof value === 'object') out[key] = listedInputSchema(value as JsonSchema);
    else out[key] = value;
  }
  return out;
}

/**
 * A description without a clause repeating the schema's own bounds: "Items per page, 1 to 1000
 * (default 50)." with minimum 1 and maximum 1000 is "Items per page (default 50).", "The first
 * message, 1 to 20000 characters." with those lengths "The first message.". A description that
 * is nothing but its range stays.
 */
function withoutStatedRange(description: string, schema: JsonSchema): string {
  const ranges = [
    [schema.minimum, schema.maximum, ''],
    [schema.minLength, schema.maxLength, ' characters'],
  ] as const;
  let text = description;
  for (const [min, max, unit] of ranges) {
    if (min !== undefined && max !== undefined)
      text = text.replace(new RegExp(`[,:] ${min} to ${max}${unit}(?=[\\s.;)])`), '');
  }
  return text;
}

/** The MCP spec's value of each hint when it is absent (ToolAnnotations). */
const HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false } as const;

/**
 * A tool's annotations as tools/list carries them: a hint equal to the spec's default is left
 * out (a client reads its absence as that value), and so are destructiveHint and idempotentHint
 * of a read-only tool, which the spec gives a meaning only when readOnlyHint is false.
 */
export function listedAnnotations(annotations: Tool['annotations']): Partial<Tool['annotations']> {
  const meaningless = (hint: string) =>
    annotations.readOnlyHint && (hint === 'destructiveHint' || hint === 'idempotentHint');
  return Object.fromEntries(
    Object.entries(annotations).filter(
      ([hint, value]) => HINT_DEFAULTS[hint as keyof typeof HINT_DEFAULTS] !== value && !meaningless(hint),
    ),
  );
}

/**
 * The output schema of a tool, by the generator OpenAPI uses, inlined and lean: types only
 * (the tool's description says what it returns; every field of the type is always present, so
 * `required` would repeat each name for nothing). `strict` adds `required` and closes every
 * object, for tests. An object return type is structuredContent itself; anything else travels
 * under `result` (toolResult).
 */
export function toolOutputSchemaOf(op: Operation, strict = false): Tool['outputSchema'] {
  const schema = nullAsAnyOf(jsonSchemaOf(op.field.type, strict ? { inline: true } : { inline: true, lean: true }));
  if (!wrapsResult(op)) return schema as Tool['outputSchema'];
  return {
    type: 'object',
    properties: { result: schema },
    ...(strict ? { required: ['result'], additionalProperties: false } : {}),
  };
}

function wrapsResult(op: Operation): boolean {
  return !(isNonNullType(op.field.type) && isObjectType(op.field.type.ofType));
}

export interface ToolSelection {
  scopes: ReadonlySet<string>;
  /** Toolsets asked for (X-MCP-Toolsets); the defaults when absent. */
  toolsets?: readonly Toolset[];
  /** X-MCP-Readonly: only tools that change nothing. */
  readOnly?: boolean;
  /** X-MCP-Output-Schemas: list each tool's outputSchema (left out by default: most of the listing's size). */
  outputSchemas?: boolean;
}

/** The tools a credential sees: in the chosen toolsets, allowed by its scopes, read-only if asked. */
export function selectTools(tools: readonly Tool[], sel: ToolSelection): Tool[] {
  const sets = new Set<Toolset>(sel.toolsets ?? DEFAULT_TOOLSETS);
  return tools.filter(
    (t) => sets.has(t.toolset) && sel.scopes.has(t.scope) && (!sel.readOnly || t.annotations.readOnlyHint),
  );
}
