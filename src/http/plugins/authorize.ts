import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { lacksScope, unauthorized } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { rootOperations } from './root-operations.ts';

/**
 * Authorization before anything answers: a mutation runs only when every operation it names is
 * within the credential's scopes; otherwise the whole execution is refused (401 without a
 * credential, 403 naming the scope) before the operation rate limits count it and before
 * idempotency reads or stores a result for its key. REST, GraphQL and MCP all execute through
 * here. Queries keep GraphQL's answer per field (scope-auth on each one): nothing stores or
 * replays a query's result.
 */
export function useOperationAuthorization(): Plugin<RequestContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      const { principal } = args.contextValue as RequestContext;
      for (const meta of rootOperations(args)) {
        if (!principal) return setResultAndStopExecution({ errors: [unauthorized()] });
        if (!principal.scopes.has(meta.scope)) return setResultAndStopExecution({ errors: [lacksScope(meta.scope)] });
      }
    },
  };
}
