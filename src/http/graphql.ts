import { useSofa } from '@graphql-yoga/plugin-sofa';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { apiErrorOf, isClientGraphQLError, unexpectedError } from '../errors.ts';
import type { RequestContext } from '../schema/context.ts';
import { listOperations } from '../schema/operation.ts';
import { tenantClient } from '../db/tenant.ts';
import { useIdempotency } from './plugins/idempotency.ts';
import { useOperationRateLimit } from './plugins/operation-rate-limit.ts';
import { useRestVariables } from './plugins/rest-variables.ts';
import type { RateLimits } from './rate-limit.ts';
import { requestScope } from './request-scope.ts';
import { restErrorResponse } from './rest-errors.ts';

const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/** What the HTTP layer hands to yoga for each request (see api.ts). */
export type ServerContext = Omit<RequestContext, 'db' | 'request'>;
export type YogaServer = YogaServerInstance<ServerContext, RequestContext>;

/**
 * GraphQL at /graphql and REST at /v1 (sofa inside yoga), from one schema. The execution
 * pipeline, in order: tenant-scoped context → strict REST variables → operation rate-limit classes → idempotency
 * → execute (scope-auth on each field) → error masking.
 */
export function createGraphQLServer(schema: GraphQLSchema, limits: RateLimits, middleware = { rateLimit: true, idempotency: true }): YogaServer {
  const routes = Object.fromEntries(
    listOperations(schema).map((op) => [`${op.kind === 'query' ? 'Query' : 'Mutation'}.${op.name}`, { method: op.method, path: op.path }]),
  );
  return createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    context: ({ request, ...server }) => {
      const ctx = server as unknown as ServerContext;
      let db: RequestContext['db'] | undefined;
      return {
        request,
        // Without a principal the client is scoped to an account that cannot exist, so it fails
        // closed (scope-auth refuses such fields before they resolve anyway).
        get db() {
          db ??= tenantClient(ctx.app.prisma, ctx.principal?.accountId ?? NO_ACCOUNT);
          return db;
        },
      } as Partial<RequestContext> as RequestContext;
    },
    maskedErrors: {
      maskError(error, _message) {
        if (apiErrorOf(error)) return error as Error;
        if (isClientGraphQLError(error)) return error;
        const cause = (error as GraphQLError)?.originalError ?? error;
        const masked = unexpectedError(cause);
        requestScope.getStore()?.log[masked.status === 503 ? 'warn' : 'error']({ err: cause }, masked.status === 503 ? 'database unavailable' : 'unexpected error');
        return masked;
      },
    },
    plugins: [
      useRestVariables(),
      ...(middleware.rateLimit ? [useOperationRateLimit(limits)] : []),
      ...(middleware.idempotency ? [useIdempotency()] : []),
      useSofa({
        basePath: '/v1',
        routes,
        // Every object type is returned whole: sofa would otherwise cut "models" to { id }.
        models: [],
        depthLimit: 2,
        errorHandler: restErrorResponse,
      } as Parameters<typeof useSofa>[0]),
    ],
  });
}
