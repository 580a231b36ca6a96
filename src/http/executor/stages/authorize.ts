import { ApiError, lacksScope, unauthorized } from '../../../errors.ts';
import { isMcpTool } from '../../../schema/operation.ts';
import { type OperationCall, refused } from '../call.ts';

/**
 * Authorization before anything answers, counts, stores or replays:
 * - MCP's exclusions (a document or tool call from an MCP client): what is not an MCP tool
 *   (operation metadata `notTool`), a mutation in a read-only session, any subscription;
 * - the named operation of a /v1 route or an MCP tool: the credential holds its scope (401
 *   without a credential, 403 naming the scope);
 * - a mutation document: every operation it names is within the scopes, or none runs.
 * A query document keeps GraphQL's answer per field (scope-auth on each one, builder.ts):
 * nothing stores or replays a query's result.
 */
export function authorize(call: OperationCall) {
  const { compiled, context } = call;
  const exclusion = context.mcp && mcpExclusion(call);
  if (exclusion) return refused(call, exclusion);
  const kind = compiled.operation?.operation;
  if (!compiled.projection && kind !== 'mutation') return;
  for (const { meta } of compiled.roots) {
    if (!context.principal) return refused(call, unauthorized());
    if (!context.principal.scopes.has(meta.scope)) return refused(call, lacksScope(meta.scope));
  }
}

/** What MCP refuses (src/mcp): decided on the operation that is about to run, so no reading of the request can disagree with it. */
function mcpExclusion(call: OperationCall): ApiError | undefined {
  const { compiled, context } = call;
  const op = compiled.operation;
  // Fails closed: the executor would refuse such a document too, but nothing here may guess.
  if (!op)
    return new ApiError(
      400,
      'Could not determine what operation to execute: give operationName when the document has several.',
    );
  if (op.operation === 'subscription') return subscriptionRefused();
  const excluded = compiled.roots.find((f) => !isMcpTool(f.meta));
  if (excluded)
    return new ApiError(
      403,
      `${excluded.name} is not available over MCP (${excluded.meta.notTool}); a person can use it through the REST API or the dashboard.`,
    );
  if (op.operation === 'mutation' && context.mcp?.readOnly)
    return new ApiError(
      403,
      'This session is read-only (X-MCP-Readonly): graphql_execute runs queries only, and this document is a mutation.',
    );
  return undefined;
}

/** MCP runs no subscriptions (code mode's documents, over HTTP or stdio). */
export const subscriptionRefused = () =>
  new ApiError(400, 'graphql_execute does not run subscriptions; subscribe over graphql-ws on /graphql.');
