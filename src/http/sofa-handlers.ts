import {
  buildASTSchema,
  getOperationAST,
  Kind,
  parse,
  printSchema,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { RequestContext } from '../schema/context.ts';
import { listOperations, type Operation } from '../schema/operation.ts';
import { restProjection, restResult, type RestProjection } from '../schema/rest-projection.ts';
import { restView } from '../schema/rest-view.ts';
import type { ServerContext, YogaServer } from './graphql.ts';
import { restRefusalResponse } from './rest-errors.ts';

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
  // sofa builds one document per route, once: each is mapped to its projection on first use.
  const projections = new WeakMap<DocumentNode, RestProjection>();
  const sofa = createSofa({
    // The REST schema (the spec's names, no graph edges), as sofa reads schemas: from SDL,
    // every type with its AST node. sofa derives its routes and variables from it.
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
    errorHandler: restRefusalResponse,
    async context(serverContext: ServerContext & { request: Request }) {
      const envelope = yoga.getEnveloped(serverContext);
      const contextValue = await envelope.contextFactory(serverContext);
      enveloped.set(contextValue, envelope);
      return contextValue;
    },
    execute(args: ExecutionArgs) {
      const envelope = enveloped.get(args.contextValue as object);
      if (!envelope) throw new TypeError('sofa executed outside a request context.');
      // sofa's document names the operation; what runs on the full schema is its REST projection.
      let projection = projections.get(args.document);
      if (!projection) {
        projection = restProjection(schema, operationOf(args));
        projections.set(args.document, projection);
      }
      return restAnswer(
        projection,
        envelope.execute({
          ...args,
          schema: envelope.schema,
          document: projection.document,
          operationName: undefined,
          variableValues: (args.contextValue as RequestContext).restVariables ?? {},
        }),
      );
    },
  } as unknown as Parameters<typeof createSofa>[0]);
  const router = createSofaRouter(sofa);
  return async (request, context) => router.fetch(request, context);
}

/** The operation a document sofa generated runs: its one root field. */
function operationOf(args: ExecutionArgs): { kind: 'query' | 'mutation'; name: string } {
  const definition = getOperationAST(args.document, args.operationName);
  const root = definition?.selectionSet.selections[0];
  if (!definition || root?.kind !== Kind.FIELD) throw new TypeError('sofa executed a document without a root field.');
  return { kind: definition.operation === 'mutation' ? 'mutation' : 'query', name: root.name.value };
}

/** The REST body of an execution (a list envelope flattened); an event stream is not one. */
async function restAnswer(projection: RestProjection, result: unknown) {
  const done = await result;
  return done && typeof done === 'object' && 'data' in done ? restResult(projection, done as ExecutionResult) : done;
}
