import { subscribe as graphqlSubscribe, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { type Caller, type RequestContext, requestContext } from '../../schema/context.ts';
import type { Operation } from '../../schema/operation.ts';
import { restProjection, restProjections } from '../../schema/rest-projection.ts';
import { type NamedOperationStage, type OperationCall, runOperationStages } from './call.ts';
import { compiled, type CompiledDocument } from './compile.ts';
import { authorize } from './stages/authorize.ts';
import { confirm } from './stages/confirm.ts';
import { execute } from './stages/execute.ts';
import { idempotency } from './stages/idempotency.ts';
import { project } from './stages/project.ts';
import { operationRateLimit } from './stages/rate-limit.ts';
import { remember } from './stages/remember.ts';
import { restate } from './stages/restate.ts';
import { textInput } from './stages/text-input.ts';

/**
 * The one executor: every operation, from every surface — a /v1 route, /graphql over HTTP and
 * graphql-ws, an MCP tool call and code mode's documents — passes these stages in this order,
 * each one file with one signature, `(call) => void | Promise<void>` (call.ts). A stage that
 * refuses (or replays) gives the call its result: the stages after it are skipped but the
 * finishing ones. The request was admitted before (the credential, its budgets: src/http/api.ts);
 * its surface shapes the result into its answer (the respond stage, MCP's tool result).
 */
export const OPERATION_STAGES: readonly NamedOperationStage[] = [
  // the credential holds the named operation's scope; MCP's exclusions. Nothing answers before this.
  { name: 'authorize', run: authorize },
  // text the database cannot store (NUL), refused up front
  { name: 'text input', run: textInput },
  // the operation's own rate-limit class (pool IP apply)
  { name: 'rate limit', run: operationRateLimit },
  // MCP: a tool that spends or destroys runs only with a person's yes (a token, or elicitation); code mode is refused
  { name: 'confirm', run: confirm },
  // Idempotency-Key: the credential's stored answer replayed, or the key claimed for this run
  { name: 'idempotency', run: idempotency },
  // the document compiled once (graphql-jit), run
  { name: 'execute', run: execute },
  // refused input in the API's words
  { name: 'restate', run: restate, finishing: true },
  // the key's record completed with the answer, or freed
  { name: 'remember', run: remember, finishing: true },
  // a named operation's answer as REST shows it
  { name: 'project', run: project, finishing: true },
];

export interface Executor {
  /**
   * A named operation (a /v1 route, an MCP tool): its REST projection, compiled at boot, with
   * the REST variables; the result is the REST body under the operation's name.
   */
  operation(
    operation: Pick<Operation, 'kind' | 'name'>,
    variables: Record<string, unknown>,
    caller: Caller,
  ): Promise<ExecutionResult>;
  /** A client's document, parsed and validated by yoga (/graphql, graphql-ws, code mode): yoga's execute. */
  execute(args: ExecutionArgs): Promise<ExecutionResult>;
  /** A subscription: its compiled form, resolved field by field (scope-auth on each). */
  subscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

/** Builds the executor of a schema: sofa-api's REST operations generated and each compiled once. */
export async function createExecutor(schema: GraphQLSchema): Promise<Executor> {
  const projections = await restProjections(schema);
  const operations = new Map<string, CompiledDocument>();
  for (const [key, projection] of projections)
    operations.set(key, compiled(schema, projection.document, undefined, projection));
  const run = (
    document: CompiledDocument,
    context: RequestContext,
    variables: Record<string, unknown>,
    rootValue?: unknown,
  ) => {
    const call: OperationCall = { compiled: document, context, variables, rootValue, timings: [] };
    return runOperationStages(OPERATION_STAGES, call);
  };
  return {
    operation(operation, variables, caller) {
      const document = operations.get(`${operation.kind}.${operation.name}`);
      // Every operation of the schema has its projection (restProjection names the one missing).
      if (!document) restProjection(projections, operation);
      return run(document as CompiledDocument, requestContext(caller), variables);
    },
    execute(args) {
      const document = compiled(args.schema, args.document, args.operationName);
      return run(document, args.contextValue as RequestContext, args.variableValues ?? {}, args.rootValue);
    },
    async subscribe(args) {
      const document = compiled(args.schema, args.document, args.operationName);
      if (!document.subscribe) return graphqlSubscribe(args);
      return document.subscribe(args.rootValue, args.contextValue as RequestContext, args.variableValues ?? {});
    },
  };
}
