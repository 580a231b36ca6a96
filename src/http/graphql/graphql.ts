import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { apiErrorOf, isClientGraphQLError, unexpectedError } from '../../errors.ts';
import type { Executor } from '../executor/index.ts';
import { type Caller, type RequestContext, requestContext } from '../../schema/context.ts';
import { subscriptionRefused } from '../executor/stages/authorize.ts';
import { useParsedBody } from './plugins/parsed-body.ts';
import { useQueryCost } from './plugins/query-cost.ts';
import { requestScope } from '../request/request-scope.ts';

/**
 * What one GraphQL document may ask for (docs/REFERENCE.md: Security). Checked while parsing and
 * validating, so a hostile document is refused with a 400 before any resolver runs. The
 * documents REST and MCP build for an operation need at most depth 5 and cost 131
 * (test/security/graphql-limits.test.ts checks every one fits).
 */
export const GRAPHQL_LIMITS = {
  /** Nesting of selections (introspection is not counted); a connection adds two levels (nodes or edges.node). */
  maxDepth: 12,
  /** graphql-armor's cost: 2 per object, 1 per scalar, ×1.5 per level of depth (plugins/query-cost.ts). */
  maxCost: 1000,
  /** The same cost with each connection counted `first` times (default 50): what a query can make the server read. */
  maxPagedCost: 250_000,
  maxAliases: 15,
  maxDirectives: 10,
  /** Lexical tokens of the document. */
  maxTokens: 2000,
} as const;

/** What the HTTP layer hands to yoga for each request (pipeline/execute.ts); the Idempotency-Key yoga reads from its request. */
export type ServerContext = Omit<Caller, 'idempotencyKey'> & { idempotencyKey?: string | null };
export type YogaServer = YogaServerInstance<ServerContext, RequestContext>;

/**
 * GraphQL over HTTP at /graphql (and the parse and validation of graphql-ws and code mode):
 * the body as the HTTP layer parsed it → the GraphQL limits while parsing and validating →
 * execution handed to the one executor (src/http/executor: authorization, rate-limit
 * classes, idempotency, the compiled document, input errors) → error masking.
 */
export function createGraphQLServer(schema: GraphQLSchema, executor: Executor): YogaServer {
  return createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    context: ({ request, ...server }) =>
      requestContext({
        ...(server as unknown as ServerContext),
        idempotencyKey: (server as ServerContext).idempotencyKey ?? request?.headers.get('idempotency-key') ?? null,
      }),
    maskedErrors: { maskError },
    // An array body (query batching) is refused: batching stays off (yoga's default).
    batching: false,
    // No CORS (docs/REFERENCE.md: Security): the API is called server-to-server with Bearer credentials and the
    // dashboard is same-origin. Yoga's default reflected any Origin with credentials allowed.
    cors: false,
    plugins: [
      // Validation errors are returned, not thrown, so the masker never sees them: 400 here.
      {
        onValidate:
          () =>
          ({ result, setResult }: { result: readonly GraphQLError[]; setResult(errors: GraphQLError[]): void }) => {
            if (result.length) setResult(result.map((e) => asBadRequest(e, 'GRAPHQL_VALIDATION_FAILED')));
          },
      },
      maxTokensPlugin({ n: GRAPHQL_LIMITS.maxTokens }),
      maxDepthPlugin({ n: GRAPHQL_LIMITS.maxDepth, flattenFragments: true }),
      useQueryCost(GRAPHQL_LIMITS),
      maxAliasesPlugin({ n: GRAPHQL_LIMITS.maxAliases }),
      maxDirectivesPlugin({ n: GRAPHQL_LIMITS.maxDirectives }),
      useParsedBody(),
      handedToExecutor(executor),
    ],
  });
}

/**
 * What a client sees of an error: the API's own as it is; GraphQL's refusals (syntax,
 * validation with the limits above, variables) as the client's 400; anything else as a 500 (or
 * a 503 when the database is away), logged, its message withheld.
 */
export function maskError(error: unknown): Error {
  if (apiErrorOf(error)) return error as Error;
  if (isClientGraphQLError(error)) return asBadRequest(error);
  const cause = (error as GraphQLError)?.originalError ?? error;
  const masked = unexpectedError(cause);
  const scope = requestScope.getStore();
  // An expected 503 (the database is away) is counted by its outage, not logged with a stack per request.
  if (masked.status === 503) scope?.outages?.database.failed(cause);
  else if (masked.status >= 500) scope?.log.error({ err: cause }, 'unexpected error');
  return masked;
}

/** Execution is the one executor's (src/http/executor): yoga has parsed and validated. */
function handedToExecutor(executor: Executor): Plugin<RequestContext> {
  return {
    onExecute: ({ setExecuteFn }) => setExecuteFn(executor.execute),
    onSubscribe: ({ args, setSubscribeFn, setResultAndStopExecution }) => {
      // MCP runs no subscriptions (code mode's documents).
      if ((args.contextValue as RequestContext).mcp)
        return setResultAndStopExecution({ errors: [subscriptionRefused()] });
      setSubscribeFn(executor.subscribe);
    },
  };
}

/**
 * GraphQL's own refusals (parse, validation, limits, variables) as the API's 400: yoga would
 * otherwise answer them with a 200 and no `status`, unlike every other error here.
 */
function asBadRequest(error: GraphQLError, code = 'BAD_REQUEST'): GraphQLError {
  // Yoga marks its own parse and validation errors `spec: true`: 400 only for clients asking
  // for application/graphql-response+json. Here every client gets the 400.
  const http = error.extensions?.http as { status?: number; spec?: boolean } | undefined;
  if (http?.status && !http.spec && error.extensions.code && error.extensions.status) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: {
      ...error.extensions,
      code: error.extensions?.code ?? code,
      status: 400,
      http: { status: 400, spec: false },
    },
  });
}
