import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError, errorBody, STATUS_NAMES, unexpectedError } from '../errors.ts';
import { withDatabaseBudget } from '../db/deadline.ts';
import { API_REVISION } from '../version.ts';
import { requestScope, type RequestScope } from './request-scope.ts';
import { sendError, type Surface } from './respond.ts';

export interface Handlers {
  api(req: IncomingMessage, res: ServerResponse, surface: 'rest' | 'graphql'): Promise<void>;
  admin(req: IncomingMessage, res: ServerResponse): Promise<void>;
  mcp(req: IncomingMessage, res: ServerResponse): Promise<void>;
  ops(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** /hooks/git/:hostingId: inbound push-to-deploy calls, signed with their own secret (src/http/hooks.ts). */
  hooks(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** /oauth/*, /.well-known/oauth-authorization-server and /.well-known/oauth-protected-resource[/mcp] (src/http/oauth.ts). */
  oauth?(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** /docs, its assets, and /redoc and /swagger that lead there (src/http/docs.ts). */
  docs?(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** Everything else: the dashboard app, its assets, /dashboard/api, /sso/:token (src/http/dashboard.ts). */
  dashboard?(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,100}$/;
/**
 * The metrics label of a request no route claimed. Surfaces set `operation` to a route
 * template or operation name once matched, so the series stay a fixed set whatever paths
 * clients send.
 */
const UNMATCHED = 'unmatched';
const HEADERS_TIMEOUT_MS = 15_000;

/**
 * The HTTP front door: request id, access log, metrics and a last-resort 500 around every
 * request, then dispatch by path to the surface that owns it.
 */
export function createHttpServer(app: App, handlers: Handlers): http.Server {
  // Timeouts are checked this often (Node's default, 30 s, would let a request overstay by as much).
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, async (req, res) => {
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    const path = (req.url ?? '/').split('?')[0];
    const surface = surfaceOf(path);
    const scope: RequestScope = {
      requestId,
      log: app.log.child({ requestId }),
      operation: surface === 'graphql' ? 'graphql' : UNMATCHED,
      outages: app.outages,
    };
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('API-Version', API_REVISION);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      app.metrics.observe(scope.operation, req.method ?? 'GET', res.statusCode, seconds);
      // The SSO landing's path carries a one-time credential: never log it.
      const logged = path.startsWith('/sso/') ? '/sso/:token' : path;
      scope.log.info(
        {
          method: req.method,
          path: logged,
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
          operation: scope.operation,
        },
        'request',
      );
    });
    const serve = () =>
      requestScope.run(scope, async () => {
        try {
          if (surface === 'rest' || surface === 'graphql') await handlers.api(req, res, surface);
          else if (surface === 'admin') await handlers.admin(req, res);
          else if (surface === 'mcp') await handlers.mcp(req, res);
          else if (surface === 'ops') await handlers.ops(req, res, path);
          else if (surface === 'oauth' && handlers.oauth) await handlers.oauth(req, res);
          else if (surface === 'hooks') await handlers.hooks(req, res, path);
          else if (surface === 'docs' && handlers.docs) await handlers.docs(req, res, path);
          else if (handlers.dashboard) await handlers.dashboard(req, res);
          else sendError(res, 'rest', new ApiError(404, `No route for ${req.method} ${path}.`));
        } catch (err) {
          // The client went away (or was cut off by the request timeout) while its body was read:
          // nobody is left to answer, and it says nothing about the database.
          if (!req.complete && req.destroyed) {
            scope.log.info({ code: (err as NodeJS.ErrnoException)?.code }, 'request aborted by the client');
            return void res.destroy();
          }
          const answer = unexpectedError(err);
          // An expected 503 (the database is away) is one line per outage, not a stack trace per request.
          if (answer.status === 503) app.outages.database.failed(err);
          else if (answer.status >= 500) scope.log.error({ err }, 'unhandled error');
          if (!res.headersSent) sendError(res, surface === 'graphql' ? 'graphql' : 'rest', answer);
          else res.destroy();
        }
      });
    // One database budget per request (src/db/deadline.ts): a frozen database costs it seconds,
    // however many statements it would send. The operator's clock advance runs due work of any size.
    await (surface === 'admin' ? serve() : withDatabaseBudget(serve));
  });
  server.keepAliveTimeout = 5000;
  // A client gets 15 s to send its headers and config.requestTimeoutMs for the whole request,
  // body included, instead of Node's 300 s: a slow sender holds a socket and a body buffer for
  // that long. Node answers 408 (the clientError handler below) and closes.
  server.requestTimeout = app.config.requestTimeoutMs;
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, app.config.requestTimeoutMs || HEADERS_TIMEOUT_MS);
  // Requests node's parser refuses before any handler runs (headers or URL over 16 KB, malformed
  // HTTP) still get the error object, then the connection closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const status =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : err.code === 'HPE_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    const body = JSON.stringify(
      errorBody(
        status,
        status === 431
          ? 'The request line and headers are larger than 16 KB.'
          : status === 408
            ? 'The request took too long to arrive.'
            : 'Malformed HTTP request.',
      ),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_NAMES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

function surfaceOf(path: string): Surface | 'oauth' | 'hooks' | 'docs' | 'none' {
  if (path === '/v1' || path.startsWith('/v1/')) return 'rest';
  if (path === '/graphql') return 'graphql';
  if (path === '/admin' || path.startsWith('/admin/')) return 'admin';
  if (path === '/mcp') return 'mcp';
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') return 'ops';
  if (path.startsWith('/oauth/') || path === '/.well-known/oauth-authorization-server') return 'oauth';
  if (path === '/.well-known/oauth-protected-resource' || path.startsWith('/.well-known/oauth-protected-resource/'))
    return 'oauth';
  if (path.startsWith('/hooks/')) return 'hooks';
  if (path === '/docs' || path.startsWith('/docs/') || /^\/(redoc|swagger)\/?$/.test(path)) return 'docs';
  return 'none';
}
