import { getOperationAST, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { isMcpTool } from '../../schema/operation.ts';
import { rootFields } from './root-operations.ts';

/**
 * The MCP trust boundary on documents an MCP client sends (code mode's graphql_execute, over
 * HTTP or stdio): decided at execution on the operation the executor is about to run, so no
 * reading of the request can disagree with it. What is not an MCP tool (operation metadata
 * `notTool`) is refused, as is a mutation in a read-only session and any subscription.
 * Nothing has run when it refuses; other requests (no `mcp` in the context) pass untouched.
 */
export function useMcpBoundary(): Plugin<RequestContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refusal = mcpRefusal(args);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      if ((args.contextValue as RequestContext).mcp) setResultAndStopExecution({ errors: [subscriptionRefused()] });
    },
  };
}

function mcpRefusal(args: ExecutionArgs): ApiError | undefined {
  const mcp = (args.contextValue as RequestContext).mcp;
  if (!mcp) return undefined;
  const op = getOperationAST(args.document, args.operationName);
  // Fails closed: the executor would refuse such a document too, but nothing here may guess.
  if (!op)
    return new ApiError(
      400,
      'Could not determine what operation to execute: give operationName when the document has several.',
    );
  if (op.operation === 'subscription') return subscriptionRefused();
  const excluded = rootFields(args).find((f) => !isMcpTool(f.meta));
  if (excluded)
    return new ApiError(
      403,
      `${excluded.name} is not available over MCP (${excluded.meta.notTool}); a person can use it through the REST API or the dashboard.`,
    );
  if (op.operation === 'mutation' && mcp.readOnly)
    return new ApiError(
      403,
      'This session is read-only (X-MCP-Readonly): graphql_execute runs queries only, and this document is a mutation.',
    );
  return undefined;
}

const subscriptionRefused = () =>
  new ApiError(400, 'graphql_execute does not run subscriptions; subscribe over graphql-ws on /graphql.');
