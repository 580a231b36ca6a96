import type { ExecutionResult } from 'graphql';
import type { App } from '../app-services.ts';
import type { Principal } from '../modules/auth/service.ts';
import type { Operation } from '../schema/operation.ts';
import { restProjection, restResult } from '../schema/rest-projection.ts';
import type { YogaServer } from './graphql.ts';
import { requestScope } from './request-scope.ts';

/**
 * Runs one operation by name with given variables through the same envelop pipeline as
 * REST and GraphQL (rate-limit classes, idempotency, scope-auth, masking). The document is
 * the operation's REST projection (schema/rest-projection.ts), the one /v1 runs, so a tool takes
 * the REST arguments and its result is the REST body.
 */
export function createOperationExecutor(app: App, yoga: YogaServer) {
  return async function executeOperation(
    op: Operation,
    variables: Record<string, unknown>,
    opts: McpCallOptions,
  ): Promise<ExecutionResult> {
    const scope = requestScope.getStore()!;
    const request = new Request('http://localhost/mcp', { method: 'POST', headers: opts.headers });
    const { schema, execute, contextFactory } = yoga.getEnveloped({
      app,
      principal: opts.principal,
      requestId: scope.requestId,
      log: scope.log,
      responseHeaders: new Headers(),
      request,
      mcp: { readOnly: opts.readOnly },
    });
    const contextValue = await contextFactory();
    const projection = restProjection(app.schema, op);
    const result = (await execute({
      schema,
      document: projection.document,
      variableValues: variables,
      contextValue,
    })) as ExecutionResult;
    return restResult(projection, result);
  };
}

export type OperationExecutor = ReturnType<typeof createOperationExecutor>;

/** Who calls over MCP, and whether the session is read-only (X-MCP-Readonly): plugins/mcp-boundary.ts holds MCP's limits. */
export interface McpCallOptions {
  principal: Principal;
  readOnly: boolean;
  headers?: Headers;
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
    const headers = new Headers(opts.headers);
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
