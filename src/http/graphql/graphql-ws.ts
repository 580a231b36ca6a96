import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, getOperationAST, type ExecutionArgs, type GraphQLFormattedError } from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { App } from '../../app-services.ts';
import { waitOutsideBy, withOutsideWaits } from '../../core/outside-waits.ts';
import type { Release } from '../admission/overload.ts';
import { ApiError, apiErrorOf, isClientGraphQLError, unauthorized, unexpectedError } from '../../errors.ts';
import { authenticate, type Principal } from '../../modules/auth/service.ts';
import { resourceUrl } from '../../modules/oauth/resources.ts';
import type { RequestContext } from '../../schema/context.ts';
import { overLimit } from '../admission/admit.ts';
import type { ServerContext } from './graphql.ts';
import { serveGraphQLWs, type SocketExtra } from './graphql-ws-socket.ts';
import { sessionPrincipalForUpgrade } from '../dashboard/session-auth.ts';

/** Most subscriptions one connection may hold open at once (docs/REFERENCE.md: Events). */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 20;

type Extra = SocketExtra & {
  /** The connection's credential as it stands now, re-resolved from what it presented. */
  current?: () => Promise<Principal | null>;
  requestId?: string;
  /** Ids of the subscriptions open on this connection. */
  subscriptions: Set<string>;
};

/**
 * Yoga's envelop for one operation: onSubscribe hands its execute and subscribe over as the root
 * value, with the instance slot a query or mutation holds while it runs (src/http/admission/overload.ts).
 */
type Enveloped = Pick<
  ReturnType<YogaServerInstance<ServerContext, RequestContext>['getEnveloped']>,
  'execute' | 'subscribe'
> & { release?: Release };

/**
 * GraphQL over WebSocket (graphql-ws protocol) on /graphql, beside HTTP GraphQL on the same
 * path. The credential travels in connectionParams (`{ authorization: "Bearer svc_..." }`,
 * or the upgrade request's Authorization header): missing or invalid → close 4401. Every
 * operation started on the socket then re-resolves it (through the principal cache: no query
 * while nothing changed), so a revoked credential stops working and a narrowed one has its new
 * scopes, and spends a point from the same budgets as an HTTP request (admission/rate-limit.ts
 * consumeRequest). Refusals and bad documents are answered in protocol, as an `error` message
 * for the operation, in GraphQL's error shape with the API's `code` and `status`. Execution goes
 * through yoga's envelop (the same plugins, context and scope-auth as HTTP), as the graphql-yoga
 * docs show for graphql-ws.
 */
export function attachGraphQLWs(
  server: http.Server,
  app: App,
  yoga: YogaServerInstance<ServerContext, RequestContext>,
  otherSockets: Record<string, (req: http.IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>> = {},
) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  // The server's one upgrade listener: /graphql here, the other sockets' paths to their handlers.
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '/').split('?')[0];
    const other = Object.hasOwn(otherSockets, path) ? otherSockets[path] : undefined;
    if (other) {
      other(req, socket, head).catch((err: unknown) => {
        app.log.error({ err, path }, 'upgrade failed');
        socket.destroy();
      });
      return;
    }
    if (path !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const log = app.log.child({ transport: 'graphql-ws' });
  const audience = resourceUrl(app.config.publicBaseUrl, 'graphql');

  serveGraphQLWs<Extra>(
    wss,
    {
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const given = params.authorization ?? params.Authorization ?? ctx.extra.request.headers.authorization;
        const bearer = async () => {
          try {
            return await authenticate(
              app.prisma,
              typeof given === 'string' ? given : null,
              app.clock.now(),
              audience,
              app.principals,
            );
          } catch (err) {
            if (apiErrorOf(err)) return null;
            throw err;
          }
        };
        // The dashboard: its session cookie, on an upgrade from our own origin (no CSWSH).
        const session = () => sessionPrincipalForUpgrade(app, ctx.extra.request);
        let principal = await bearer();
        let current = bearer;
        if (!principal && given === undefined) {
          principal = await session();
          current = session;
        }
        if (!principal) {
          ctx.extra.socket.close(
            CloseCode.Unauthorized,
            'Unauthorized: a valid API key is required in connectionParams.authorization',
          );
          return false;
        }
        app.keyUse.record(principal);
        ctx.extra.current = current;
        ctx.extra.requestId = randomUUID();
        return true;
      },
      execute: (args: ExecutionArgs) =>
        withOutsideWaits(async () => {
          const root = args.rootValue as Enveloped;
          let release = root.release;
          // A wait on another server (a git clone) holds no slot, as over HTTP (src/core/outside-waits.ts).
          waitOutsideBy((wait) =>
            app.overload.waitWithoutSlot(
              () => {
                const held = release;
                release = undefined;
                held?.();
                return held !== undefined;
              },
              (slot) => {
                release = slot;
              },
              wait,
            ),
          );
          try {
            return await root.execute(args);
          } finally {
            release?.();
          }
        }),
      subscribe: (args: ExecutionArgs) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, id, params) => {
        const requestId = ctx.extra.requestId ?? randomUUID();
        // A slot taken for this operation and not yet handed to its execution: given back on a refusal.
        let held: Release | undefined;
        try {
          const principal = await ctx.extra.current?.();
          if (!principal) {
            ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: the credential was revoked or has expired');
            return [unauthorized('The credential of this connection was revoked or has expired.')];
          }
          const limit = await app.limits.consumeRequest(principal.credentialId, principal.accountId, principal.kind);
          if (!limit.allowed) {
            // No headers on a socket: the wait travels in the error.
            const refused = overLimit(limit);
            return [
              new GraphQLError(refused.message, {
                extensions: { code: refused.extensions.code, status: refused.status, retryAfter: limit.retryAfter },
              }),
            ];
          }
          const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
            app,
            principal,
            currentPrincipal: ctx.extra.current,
            requestId,
            log: log.child({ requestId }),
            responseHeaders: new Headers(),
            // No headers on a socket: no Idempotency-Key.
            idempotencyKey: null,
            params,
          });
          const document = parse(params.query);
          const errors = validate(schema, document);
          if (errors.length) return [...errors];
          const subscription = getOperationAST(document, params.operationName)?.operation === 'subscription';
          // The instance's limits as over HTTP, refused in protocol: a query or mutation holds a
          // slot while it runs; a new subscription starts only while the instance is not shedding.
          const release = await app.overload.acquire(subscription ? 'read' : 'call');
          if (subscription) release();
          else held = release;
          if (subscription) {
            if (ctx.extra.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
              return [
                new ApiError(
                  429,
                  `This connection already has ${MAX_SUBSCRIPTIONS_PER_SOCKET} open subscriptions, the most one connection may hold: complete one first.`,
                ),
              ];
            }
            ctx.extra.subscriptions.add(id);
          }
          const args = {
            schema,
            operationName: params.operationName,
            document,
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe, release: held },
          } as ExecutionArgs;
          held = undefined;
          return args;
        } catch (err) {
          held?.();
          // A syntax error (the client's) or a failure (ours, logged): an `error` message either way.
          if (isClientGraphQLError(err) || apiErrorOf(err)) return [err as GraphQLError];
          const masked = unexpectedError(err);
          log[masked.status === 503 ? 'warn' : 'error'](
            { err, requestId },
            masked.status === 503 ? 'database unavailable' : 'unexpected error',
          );
          return [masked];
        }
      },
      onComplete: (ctx, id) => {
        ctx.extra.subscriptions.delete(id);
      },
      onError: (_ctx, _id, _payload, errors) => errors.map(formatted),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map(formatted) } : undefined,
    },
    log,
    (socket, request) => ({ socket, request, subscriptions: new Set() }),
  );

  return {
    async close(): Promise<void> {
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * An error as graphql-ws sends it: GraphQL's shape with the API's `code` and `status` (400 for
 * GraphQL's own refusals, as over HTTP) and nothing of the HTTP-only `http` extension.
 */
function formatted(error: GraphQLError): GraphQLFormattedError {
  const { http: _http, ...extensions } = (error.extensions ?? {}) as Record<string, unknown>;
  const status = (extensions.status as number | undefined) ?? (isClientGraphQLError(error) ? 400 : undefined);
  return {
    message: error.message,
    ...(error.locations ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
    extensions: {
      ...extensions,
      code: extensions.code ?? (status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR'),
      status: status ?? 500,
    },
  };
}
