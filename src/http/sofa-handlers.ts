import type { ExecutionArgs, GraphQLSchema } from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { RequestContext } from '../schema/context.ts';
import { listOperations } from '../schema/operation.ts';
import { restView } from '../schema/rest-view.ts';
import type { ServerContext, YogaServer } from './graphql.ts';
import { restErrorResponse } from './rest-errors.ts';

/** What a /v1 operation's handler is given: the request (headers only) and what yoga's context is built from. */
export type SofaHandler = (request: Request, context: ServerContext & { restVariables: Record<string, unknown> }) => Promise<Response>;

type Enveloped = ReturnType<YogaServer['getEnveloped']>;
interface SofaRoute {
  method: string;
  path: string;
  handler: (request: Request & { params: Record<string, string> }, context: object) => Promise<Response>;
}

/**
 * sofa-api generates each /v1 operation's handler from the schema and the operation metadata
 * (its document and selection, the execution through yoga's plugins, the response and its
 * errors). The app's router (rest-routes.ts) has already matched the request, so the handler
 * is taken by operation name and called directly: sofa's own router never runs, and the request
 * is matched once. Sofa's handler would read variables from the request's params, query and body;
 * it is handed none of them and executes with the ones rest-variables.ts built, once.
 */
export function sofaHandlers(schema: GraphQLSchema, yoga: YogaServer): Map<string, SofaHandler> {
  const operations = listOperations(schema);
  const enveloped = new WeakMap<object, Enveloped>();
  const sofa = createSofa({
    // The REST view: sofa selects every field of a return type, and the graph's edges are GraphQL-only.
    schema: restView(schema),
    basePath: '/v1',
    routes: Object.fromEntries(operations.map((op) => [`${op.kind === 'query' ? 'Query' : 'Mutation'}.${op.name}`, { method: op.method, path: op.path }])),
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
      return envelope.execute({ ...args, schema: envelope.schema, variableValues: (args.contextValue as RequestContext).restVariables ?? {} });
    },
  } as unknown as Parameters<typeof createSofa>[0]);
  // `__routes` is the list of routes sofa registered on its (fets) router: the generated handlers.
  const generated = (createSofaRouter(sofa) as unknown as { __routes: SofaRoute[] }).__routes;
  const byRoute = new Map(generated.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r.handler]));
  const handlers = new Map<string, SofaHandler>();
  for (const op of operations) {
    const handler = byRoute.get(`${op.method} ${op.path}`);
    if (!handler) throw new Error(`sofa generated no handler for ${op.method} ${op.path} (${op.name}).`);
    handlers.set(op.name, (request, context) => handler(Object.assign(request, { params: {} }), context));
  }
  return handlers;
}
