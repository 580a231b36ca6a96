import type { ExecutionResult } from 'graphql';
import type { App } from '../app-services.ts';
import type { Principal } from '../modules/auth/service.ts';
import type { Operation } from '../schema/operation.ts';
import type { YogaServer } from './graphql.ts';
import type { Executor } from './operation/index.ts';
import { requestScope } from './request-scope.ts';

/**
 * Runs one MCP tool's operation by name with the tool call's arguments through the one executor
 * (src/http/operation), as a /v1 route runs it: the operation's REST projection, so a tool takes
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
      mcp: { readOnly: opts.readOnly },
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
}

/** A GraphQL request body as POST /graphql takes it. */
export interface GraphQLRequestBody {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/**
 * Runs a client's GraphQL document exactly as POST /graphql does: the request goes through
 * yoga itself (parse with the token limit, validation with the depth, cost and alias limits,
 * scope-auth, rate-limit classes, idempotency, error masking) and MCP's boundary, only without a socket. The
 * per-credential limit was counted when the carrying request (MCP's) was admitted.
 */
export function createDocumentExecutor(app: App, yoga: YogaServer) {
  return async function executeDocument(body: GraphQLRequestBody, opts: McpCallOptions): Promise<ExecutionResult> {
    const scope = requestScope.getStore()!;
    const headers = new Headers();
    if (opts.idempotencyKey) headers.set('idempotency-key', opts.idempotencyKey);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json');
    const request = new Request('http://localhost/graphql', { method: 'POST', headers });
    const response = await yoga.handleRequest(request, {
      app,
      principal: opts.principal,
      requestId: scope.requestId,
      log: scope.log,
      responseHeaders: new Headers(),
      mcp: { readOnly: opts.readOnly },
      // Handed over parsed, as the HTTP layer does for /graphql (plugins/parsed-body.ts).
      jsonBody: body,
    });
    return (await response.json()) as ExecutionResult;
  };
}

export type DocumentExecutor = ReturnType<typeof createDocumentExecutor>;
