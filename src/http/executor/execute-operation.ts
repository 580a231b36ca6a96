import { GraphQLError, getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { ApiError } from '../../errors.ts';
import type { App } from '../../app-services.ts';
import type { Principal } from '../../modules/auth/service.ts';
import type { McpConfirm } from '../../schema/context.ts';
import type { Operation } from '../../schema/operation.ts';
import { maskError, type YogaServer } from '../graphql/graphql.ts';
import type { Executor } from './index.ts';
import { requestScope } from '../request/request-scope.ts';

/**
 * Runs one MCP tool's operation by name with the tool call's arguments through the one executor
 * (src/http/executor), as a /v1 route runs it: the operation's REST projection, so a tool takes
 * the REST arguments and its result is the REST body.
 */
export function createOperationExecutor(app: App, executor: Executor) {
  return function executeOperation(
    op: Operation,
    variables: Record<string, unknown>,
    opts: McpCallOptions,
  ): Promise<ExecutionResult> {
    const scope = requestScope.getStore()!;
    return executor.operation(op, variables, {
      app,
      principal: opts.principal,
      requestId: scope.requestId,
      log: scope.log,
      responseHeaders: new Headers(),
      mcp: { readOnly: opts.readOnly, ...(opts.confirm ? { confirm: opts.confirm } : {}) },
      idempotencyKey: opts.idempotencyKey ?? null,
    });
  };
}

export type OperationExecutor = ReturnType<typeof createOperationExecutor>;

/** Who calls over MCP, and whether the session is read-only (X-MCP-Readonly): the authorize stage holds MCP's exclusions. */
export interface McpCallOptions {
  principal: Principal;
  readOnly: boolean;
  /** The call's Idempotency-Key (its argument, or the request's header). */
  idempotencyKey?: string | null;
  /** A tool that spends or destroys: the token sent with it, or how to ask the person (stages/confirm.ts). */
  confirm?: McpConfirm;
}

/** A GraphQL request body as POST /graphql takes it. */
export interface GraphQLRequestBody {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/**
 * Runs a client's GraphQL document as POST /graphql does, without HTTP: yoga's envelop parses
 * (with the token limit) and validates (with the depth, cost and alias limits), and its execute
 * is the one executor's (MCP's exclusions, scopes, rate-limit classes, idempotency), with yoga's
 * error masking. The answer is the GraphQL response as JSON, as /graphql would send it. The
 * per-credential limit was counted when the carrying request (MCP's) was admitted.
 */
export function createDocumentExecutor(app: App, yoga: YogaServer) {
  return async function executeDocument(body: GraphQLRequestBody, opts: McpCallOptions): Promise<ExecutionResult> {
    const scope = requestScope.getStore()!;
    const { parse, validate, contextFactory, execute, schema } = yoga.getEnveloped({
      app,
      principal: opts.principal,
      requestId: scope.requestId,
      log: scope.log,
      responseHeaders: new Headers(),
      mcp: { readOnly: opts.readOnly },
      idempotencyKey: opts.idempotencyKey ?? null,
    });
    let result: ExecutionResult;
    try {
      const document = parsed(parse, body.query);
      // As yoga refuses it over HTTP, before validation: the operation to run must be known.
      if (!getOperationAST(document, body.operationName))
        throw new ApiError(400, 'Could not determine what operation to execute.', {
          code: 'OPERATION_RESOLUTION_FAILURE',
        });
      const invalid = validate(schema, document);
      result = invalid.length
        ? { errors: invalid }
        : ((await execute({
            schema,
            document,
            operationName: body.operationName,
            variableValues: body.variables,
            contextValue: await contextFactory(),
          })) as ExecutionResult);
    } catch (err) {
      result = { errors: [maskError(err) as GraphQLError] };
    }
    return asSent(result);
  };
}

/** The document, or its syntax error with the code /graphql gives it (GRAPHQL_PARSE_FAILED). */
function parsed(parse: (source: string) => DocumentNode, source: string): DocumentNode {
  try {
    return parse(source);
  } catch (err) {
    if (err instanceof GraphQLError) (err.extensions as Record<string, unknown>).code ??= 'GRAPHQL_PARSE_FAILED';
    throw err;
  }
}

/** A result as /graphql sends it: JSON, without the errors' HTTP-only extensions. */
function asSent(result: ExecutionResult): ExecutionResult {
  const sent = JSON.parse(JSON.stringify(result)) as Omit<ExecutionResult, 'errors'> & {
    errors?: { extensions?: Record<string, unknown> }[];
  };
  for (const error of sent.errors ?? []) {
    if (!error.extensions) continue;
    const { http: _http, unexpected: _unexpected, ...extensions } = error.extensions;
    if (Object.keys(extensions).length) error.extensions = extensions;
    else delete error.extensions;
  }
  return sent as ExecutionResult;
}

export type DocumentExecutor = ReturnType<typeof createDocumentExecutor>;
