import type { IncomingMessage, ServerResponse } from 'node:http';
import { mcpOriginRefusal } from '../../mcp/http.ts';
import type { AdminRoute } from '../operator/admin.ts';
import { wantsGraphiQL } from '../pages/docs.ts';
import type { V1Route } from '../rest/rest-routes.ts';
import { noRoute, type Router } from '../request/router.ts';
import { type Exchange, methodNotAllowed, type Route, type Stage } from './exchange.ts';

type PageHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | void;

/** What the route stage chooses from: the route tables and the handlers of pages and flows. */
export interface RouteTable {
  v1: Router<V1Route>;
  admin: Router<AdminRoute>;
  /** The OpenAPI document (public: it describes the API, not an account). */
  openApi: () => object;
  graphiql: (req: IncomingMessage, res: ServerResponse) => void;
  /** /oauth/*, /.well-known/oauth-* (src/http/oauth/oauth.ts). */
  oauth: PageHandler;
  /** /hooks/git/:hostingId: push-to-deploy calls, signed with their own secret (src/http/hooks/hooks.ts). */
  hooks: PageHandler;
  /** /ssh-terminal/…: a browser-SSH session's page and its calls, opened by the session's own token (src/http/pages/ssh-terminal.ts). */
  terminal: PageHandler;
  /** /server-console/…: the web console's page and assets (its socket is an upgrade: src/http/pages/server-console.ts). */
  serverConsole: PageHandler;
  /** /docs, its assets, /redoc and /swagger (src/http/pages/docs.ts). */
  docs: PageHandler;
  /** Everything else: the dashboard app, its assets, /dashboard/api, /sso/:token (src/http/dashboard/dashboard.ts). */
  dashboard: PageHandler;
}

/**
 * Stage 2, route: what the request is, by its path and method (one match against the /v1 table,
 * rest/rest-routes.ts; the operator API's; the fixed paths), and the metrics label that names it.
 * The binary streams of that table are served again under /dashboard/api/v1 for the dashboard's
 * session (admitted by its cookie and CSRF header: pipeline/admit.ts).
 * Refusals that need no credential are made here: a method the public documents and probes do
 * not take, and MCP's foreign Origin. A /v1 or /admin path no route takes becomes `unrouted`,
 * answered 404 or 405 after admission, like any route's answer.
 */
export function route(table: RouteTable): Stage {
  return (x: Exchange) => {
    x.route = choose(table, x);
  };
}

/** The dashboard's own API (src/http/dashboard/dashboard.ts); below it, at /v1/…, the binary streams again. */
const DASHBOARD_API = '/dashboard/api';

function choose(table: RouteTable, x: Exchange): Route {
  const { path, method, scope } = x;
  const page = (handler: PageHandler): Route => ({ kind: 'page', serve: (req, res) => handler(req, res, path) });
  if (path === '/v1' || path.startsWith('/v1/')) {
    // `/v1/servers/` is `/v1/servers`: the route table allows the slash and sofa must see the same path.
    if (x.url.pathname.length > 4 && x.url.pathname.endsWith('/')) x.url.pathname = x.url.pathname.replace(/\/+$/, '');
    if (x.url.pathname === '/v1/openapi.json') {
      scope.operation = 'openapi';
      if (method !== 'GET') throw methodNotAllowed('Use GET.', 'GET');
      return { kind: 'document', document: table.openApi };
    }
    const match = table.v1.match(method, x.url.pathname);
    if (match.kind !== 'found')
      return { kind: 'unrouted', surface: 'rest', error: noRoute(match, method, x.url.pathname) };
    if (match.route.binary) {
      scope.operation = match.route.binary.operationId;
      return { kind: 'binary', binary: match.route.binary, params: match.params };
    }
    scope.operation = match.route.operation.name;
    return { kind: 'operation', operation: match.route.operation, params: match.params };
  }
  if (path.startsWith(`${DASHBOARD_API}/v1/`)) {
    // The dashboard's way to the binary streams (a session never reaches /v1): the very routes
    // of the /v1 table, matched below this prefix; its operations stay on /graphql.
    const match = table.v1.match(method, x.url.pathname.slice(DASHBOARD_API.length));
    if (match.kind === 'found' && match.route.binary) {
      scope.operation = `dashboard ${match.route.binary.operationId}`;
      return { kind: 'binary', binary: match.route.binary, params: match.params, viaDashboard: true };
    }
  }
  if (path === '/graphql') {
    scope.operation = 'graphql';
    // A browser opening /graphql gets GraphiQL, a public page like the OpenAPI document.
    return wantsGraphiQL(x.req) ? { kind: 'page', serve: table.graphiql } : { kind: 'graphql' };
  }
  if (path === '/mcp') {
    scope.operation = 'mcp';
    const refusal = mcpOriginRefusal(x.app, x.req);
    if (refusal) throw refusal;
    return { kind: 'mcp' };
  }
  if (path === '/admin' || path.startsWith('/admin/')) {
    const match = table.admin.match(method, x.url.pathname);
    if (match.kind !== 'found')
      return { kind: 'unrouted', surface: 'admin', error: noRoute(match, method, x.url.pathname) };
    scope.operation = `admin ${match.route.method} ${match.route.path}`;
    return { kind: 'admin', handle: match.route.handle, params: match.params };
  }
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') {
    scope.operation = path.slice(1);
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed('Use GET.', 'GET');
    return { kind: 'ops', path };
  }
  if (isOAuthPath(path)) return page(table.oauth);
  if (path.startsWith('/hooks/')) return page(table.hooks);
  if (path.startsWith('/ssh-terminal/')) return page(table.terminal);
  if (path.startsWith('/server-console/')) return page(table.serverConsole);
  if (path === '/docs' || path.startsWith('/docs/') || /^\/(redoc|swagger)\/?$/.test(path)) return page(table.docs);
  return page(table.dashboard);
}

function isOAuthPath(path: string): boolean {
  return (
    path.startsWith('/oauth/') ||
    path === '/.well-known/oauth-authorization-server' ||
    path === '/.well-known/oauth-protected-resource' ||
    path.startsWith('/.well-known/oauth-protected-resource/')
  );
}
