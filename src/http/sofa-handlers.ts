import { buildASTSchema, type ExecutionArgs, type GraphQLSchema, parse, printSchema } from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { RequestContext } from '../schema/context.ts';
import { listOperations, type Operation } from '../schema/operation.ts';
import { restView } from '../schema/rest-view.ts';
import type { ServerContext, YogaServer } from './graphql.ts';
import { restErrorResponse } from './rest-errors.ts';

const BASE_PATH = '/v1';

/** Where sofa's router serves an operation: a fixed path per operation (the spec's paths are rest-routes.ts's). */
export function sofaUrl(origin: string, op: Operation): string {
  return `${origin}${BASE_PATH}${operationPath(op)}`;
}

const operationPath = (op: Operation) => `/operations/${op.name}`;

/** What runs a /v1 operation: the request (its path, method and headers) and what yoga's context is built from. */
export type SofaHandler = (
  request: Request,
  context: ServerContext & { restVariables: Record<string, unknown> },
) => Promise<Response>;

type Enveloped = ReturnType<YogaServer['getEnveloped']>;

/**
 * sofa-api generates each /v1 operation from the schema and the operation metadata (its
 * document and selection, the execution through yoga's plugins, the response and its errors),
 * and its router (createSofaRouter, a fets router) serves them: the answer is what sofa's router
 * answers. The app's router (rest-routes.ts) has matched the request and built its variables
 * once (rest-variables.ts); sofa is handed a request without query or body and executes with
 * those variables. So sofa's router needs no path parameters either: each operation is
 * registered under a fixed path of its own (`sofaUrl`), which fets finds in one map lookup
 * where a parameterised path is tried pattern after pattern.
 */
export function sofaHandler(schema: GraphQLSchema, yoga: YogaServer): SofaHandler {
  const operations = listOperations(schema);
  const enveloped = new WeakMap<object, Enveloped>();
  const sofa = createSofa({
    // The REST view (sofa selects every field of a return type; the graph's edges are
    // GraphQL-only), as sofa reads schemas: from SDL, every type with its AST node.
    schema: buildASTSchema(parse(printSchema(restView(schema)))),
    basePath: BASE_PATH,
    routes: Object.fromEntries(
      operations.map((op) => [
        `${op.kind === 'query' ? 'Query' : 'Mutation'}.${op.name}`,
        { method: op.method, path: operationPath(op) },
      ]),
    ),
    // Every object type is returned whole: sofa would otherwise cut "models" to { id }.
    models: [],
    depthLimit: 2,
    errorHandler: restErrorResponse,
    async context(serverContext: ServerContext & { request: Request }) {
      const envelope = yoga.getEnveloped(serverContext);
      const contextValue = await envelope.contextFactory(serverContext);
      enveloped.set(contextValue, envelope);
      return contextValue;
    },
    execute(args: ExecutionArgs) {
      const envelope = enveloped.get(args.contextValue as object);
      if (!envelope) throw new TypeError('sofa executed outside a request context.');
      // The document, built from the REST view, runs on the full schema (the same resolvers).
      return envelope.execute({
        ...args,
        schema: envelope.schema,
        variableValues: (args.contextValue as RequestContext).restVariables ?? {},
      });
    },
  } as unknown as Parameters<typeof createSofa>[0]);
  const router = createSofaRouter(sofa);
  return async (request, context) => router.fetch(request, context);
}
