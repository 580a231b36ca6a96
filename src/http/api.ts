import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError, apiErrorOf, badRequest } from '../errors.ts';
import { readBody, parseJsonBody } from './body.ts';
import type { YogaServer } from './graphql.ts';
import { admit } from './admit.ts';
import { requestScope } from './request-scope.ts';
import { sendError, sendFetchResponse, sendJson, type Surface } from './respond.ts';
import type { RestRoutes } from './rest-routes.ts';
import { BinaryRoutes } from './binary-routes.ts';
import { restVariables } from './rest-variables.ts';

/**
 * The customer API's HTTP pipeline for /v1 (REST) and /graphql:
 * admit (authenticate, per-credential rate limit) → route (REST) → body → yoga (execution plugins).
 */
export function createApiHandler(app: App, yoga: YogaServer, routes: RestRoutes, openApi: () => object) {
  // Binary streams (upload, downloads): hand-written routes with the same auth, scope and errors.
  const binary = new BinaryRoutes();
  return async function handleApi(req: IncomingMessage, res: ServerResponse, surface: 'rest' | 'graphql'): Promise<void> {
    const scope = requestScope.getStore()!;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    // `/v1/servers/` is `/v1/servers`: the route table allows the slash and sofa must see the same path.
    if (surface === 'rest' && url.pathname.length > 4 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');

    // The OpenAPI document is public: it describes the API, not an account.
    if (surface === 'rest' && url.pathname === '/v1/openapi.json') {
      scope.operation = 'openapi';
      if (method !== 'GET') return sendError(res, surface, new ApiError(405, 'Use GET.'), { Allow: 'GET' });
      return sendJson(res, 200, openApi());
    }

    const { principal, limitHeaders, refusal } = await admit(app, req);
    const fail = (error: ApiError) => sendError(res, surface, error, limitHeaders);
    if (refusal) return fail(refusal);

    try {
      let restArgs: Set<string> | undefined;
      let restMatch: Extract<ReturnType<RestRoutes['match']>, { kind: 'found' }> | undefined;
      if (surface === 'rest') {
        const bin = binary.match(method, url.pathname);
        if (bin.kind === 'found') {
          scope.operation = bin.route.operationId;
          return await binary.dispatch(app, principal, bin, req, res, url, limitHeaders);
        }
        const match = routes.match(method, url.pathname);
        if (match.kind === 'not-found' && !bin.allow.length) return fail(new ApiError(404, `No route for ${method} ${url.pathname}.`));
        if (match.kind !== 'found') {
          const allow = [...new Set([...(match.kind === 'method-not-allowed' ? match.allow : []), ...bin.allow])];
          return sendError(res, surface, new ApiError(405, `${method} is not allowed on ${url.pathname}; use ${allow.join(', ')}.`), { ...limitHeaders, Allow: allow.join(', ') });
        }
        scope.operation = match.operation.name;
        restMatch = match;
        restArgs = new Set(match.operation.field.args.map((a) => a.name));
        for (const name of url.searchParams.keys()) {
          if (!restArgs.has(name)) throw badRequest(`Unknown query parameter "${name}".`, name);
        }
      }
      const raw = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, app.config.bodyLimitBytes);
      const parsed = parseJsonBody(req, raw);
      if (restArgs && parsed !== undefined) {
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('The request body must be a JSON object.');
        for (const name of Object.keys(parsed)) {
          if (!restArgs.has(name)) throw badRequest(`Unknown body field "${name}".`, name);
        }
      }
      const restVars = restMatch && restVariables(restMatch.operation, restMatch.params, url.searchParams, parsed as Record<string, unknown> | undefined);
      // The body is handed over parsed (plugins/parsed-body.ts), never read and parsed again.
      const request = new Request(url.href, { method, headers: toHeaders(req) });
      const responseHeaders = new Headers();
      const response = await yoga.handleRequest(request, { app, principal, requestId: scope.requestId, log: scope.log, responseHeaders, restVariables: restVars, jsonBody: parsed });
      await sendFetchResponse(res, response, { ...limitHeaders, ...Object.fromEntries(responseHeaders) });
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) throw err;
      // A streamed answer that failed half-way cannot be turned into an error body.
      if (res.headersSent) return void res.destroy();
      if (api.status === 413) res.setHeader('Connection', 'close');
      fail(api);
    }
  };
}

export function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key === 'content-length' || key === 'transfer-encoding' || key === 'connection') continue;
    headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
