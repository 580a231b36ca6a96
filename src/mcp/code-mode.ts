import type { GraphQLSchema } from 'graphql';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors.ts';
import type { DocumentExecutor } from '../http/executor/execute-operation.ts';
import { GRAPHQL_LIMITS } from '../http/graphql/graphql.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../modules/auth/idempotency.ts';
import { requestScope } from '../http/request/request-scope.ts';
import type { Principal } from '../modules/auth/service.ts';
import type { JsonSchema } from '../schema/json-schema.ts';
import { IDEMPOTENCY_ARG } from './catalog.ts';
import { describeType, queryWords, schemaView, searchSchema } from './schema-search.ts';
import { toolError, toolResult } from './tool-results.ts';
import { documentUntrustedPaths, untrustedMeta } from './untrusted.ts';

const SCHEMA_SEARCH_TOOL = 'graphql_schema_search';
const EXECUTE_TOOL = 'graphql_execute';
const SEARCH_LIMIT = { default: 10, max: 25 } as const;

/** A code-mode tool as tools/list shows it. */
export interface CodeModeTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
}

/**
 * Code mode's two tools. In a read-only session graphql_execute runs queries only and says so;
 * otherwise it also runs mutations, some of which destroy data, so it is annotated destructive.
 */
export function codeModeTools(readOnly: boolean): CodeModeTool[] {
  const L = GRAPHQL_LIMITS;
  return [
    {
      name: SCHEMA_SEARCH_TOOL,
      title: 'Search the GraphQL schema',
      description:
        'Find the GraphQL types and fields whose name or description match `query` (best first: each field with its arguments, type and, for root fields, the scope it needs), ' +
        'or give `type` for one type with all its fields. Shows only what this credential can use. Then run a document with graphql_execute.',
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            description: 'Words to look for, e.g. "server power".',
          },
          type: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description: 'Exact type name, e.g. "Server" (instead of query).',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: SEARCH_LIMIT.max,
            default: SEARCH_LIMIT.default,
            description: 'Matches per page.',
          },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
        },
        additionalProperties: false,
      },
      // A page of matches, or (with type) the type itself: { kind, name, typeKind, fields }.
      outputSchema: {
        type: 'object',
        properties: {
          data: { type: 'array', items: { type: 'object' } },
          hasMore: { type: 'boolean' },
          nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          kind: { type: 'string' },
          name: { type: 'string' },
          fields: { type: 'array', items: { type: 'object' } },
        },
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: EXECUTE_TOOL,
      title: readOnly ? 'Run a GraphQL query' : 'Run a GraphQL query or mutation',
      description:
        `Run one GraphQL ${readOnly ? 'query (this session is read-only: mutations are refused)' : 'query or mutation'} as POST /graphql would, with this credential's scopes and rate limit. ` +
        `Limits: depth ${L.maxDepth}, cost ${L.maxCost}, ${L.maxAliases} aliases, ${L.maxTokens} tokens. No subscriptions. ` +
        'Returns the GraphQL response {data, errors}; each error has extensions.code and the HTTP status as extensions.status.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'The GraphQL document.' },
          variables: { type: 'object', description: 'Values of its variables.' },
          operationName: { type: 'string', description: 'The operation to run when the document has several.' },
          ...(readOnly
            ? {}
            : {
                [IDEMPOTENCY_ARG]: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 255,
                  description:
                    'For mutations that honour Idempotency-Key: a retry with the same key returns the first result.',
                },
              }),
        },
        required: ['query'],
        additionalProperties: false,
      },
      // The GraphQL response.
      outputSchema: {
        type: 'object',
        properties: {
          data: { anyOf: [{ type: 'object' }, { type: 'null' }] },
          errors: { type: 'array', items: { type: 'object' } },
        },
      },
      annotations: readOnly
        ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
        : { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
  ];
}

interface CodeModeCall {
  principal: Principal;
  readOnly: boolean;
}
export type CodeModeRunner = (
  name: string,
  args: Record<string, unknown>,
  call: CodeModeCall,
) => Promise<CallToolResult>;

/** Runs the code-mode tools for one credential: the schema search on the schema, documents through /graphql's pipeline. */
export function createCodeModeRunner(schema: GraphQLSchema, executeDocument: DocumentExecutor): CodeModeRunner {
  return async (name, args, call) => {
    requestScope.getStore()!.operation = `mcp ${name}`;
    if (name === SCHEMA_SEARCH_TOOL) return searchTool(schema, args, call);
    return executeTool(schema, executeDocument, args, call);
  };
}

function searchTool(schema: GraphQLSchema, args: Record<string, unknown>, call: CodeModeCall): CallToolResult {
  const unknown = Object.keys(args).find((k) => !['query', 'type', 'limit', 'cursor'].includes(k));
  if (unknown) return toolError(400, `Unknown argument "${unknown}".`);
  const { query, type, limit = SEARCH_LIMIT.default, cursor } = args;
  const view = schemaView(schema, call.principal.scopes, call.readOnly);
  if (typeof type === 'string' && query === undefined) {
    const found = describeType(view, type);
    return found
      ? toolResult(found)
      : toolError(404, `No type named "${type}" that this credential can use; search with query to find names.`);
  }
  if (typeof query !== 'string' || type !== undefined)
    return toolError(400, 'Give either query (words to look for) or type (an exact type name).');
  const words = queryWords(query);
  if (!words.length || query.length > 200)
    return toolError(400, 'query must have 1 to 200 characters with at least one letter or digit.');
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > SEARCH_LIMIT.max)
    return toolError(400, `limit must be an integer from 1 to ${SEARCH_LIMIT.max}.`, 'limit');
  const matches = searchSchema(view, words);
  // A nextCursor is an offset inside the matches (1 up to their count); anything else was not issued.
  const offset =
    cursor === undefined ? 0 : typeof cursor === 'string' && /^[1-9]\d{0,5}$/.test(cursor) ? Number(cursor) : -1;
  if (offset < 0 || (cursor !== undefined && offset >= matches.length))
    return toolError(400, 'cursor must be the nextCursor of a previous page.', 'cursor');
  const end = offset + (limit as number);
  return toolResult({
    data: matches.slice(offset, end),
    hasMore: end < matches.length,
    nextCursor: end < matches.length ? String(end) : null,
  });
}

async function executeTool(
  schema: GraphQLSchema,
  executeDocument: DocumentExecutor,
  args: Record<string, unknown>,
  call: CodeModeCall,
): Promise<CallToolResult> {
  const { query, variables, operationName, [IDEMPOTENCY_ARG]: idempotencyKey, ...rest } = args;
  const unknown = Object.keys(rest)[0] ?? (call.readOnly && idempotencyKey !== undefined ? IDEMPOTENCY_ARG : undefined);
  if (unknown) return graphqlError(400, `Unknown argument "${unknown}".`);
  if (typeof query !== 'string' || !query.trim()) return graphqlError(400, 'query must be a GraphQL document.');
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables)))
    return graphqlError(400, 'variables must be an object.');
  if (operationName !== undefined && typeof operationName !== 'string')
    return graphqlError(400, 'operationName must be a string.');
  // Checked here as the pipeline would check the header: a header cannot carry every string.
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
  )
    return graphqlError(400, `${IDEMPOTENCY_ARG} must be 1 to 255 visible ASCII characters.`);

  // What MCP refuses (subscriptions, mutations when read-only, what is not a tool) is refused at
  // execution on the operation that runs (src/http/executor/stages/authorize.ts); operationName goes
  // on exactly as given, so the pipeline answers "" as /graphql does.
  const body = {
    query,
    ...(variables ? { variables: variables as Record<string, unknown> } : {}),
    ...(operationName !== undefined ? { operationName } : {}),
  };
  const result = await executeDocument(body, { principal: call.principal, idempotencyKey, readOnly: call.readOnly });
  const untrusted = result.data ? documentUntrustedPaths(schema, query, operationName) : [];
  return {
    ...toolResult(result),
    ...untrustedMeta(untrusted),
    ...(result.errors?.length ? { isError: true } : {}),
  };
}

/** A refusal in the shape of a GraphQL response, like every other answer of graphql_execute. */
function graphqlError(status: number, message: string): CallToolResult {
  const { extensions } = new ApiError(status, message);
  const body = { errors: [{ message, extensions: { code: extensions.code, status } }] };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
