import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError, apiErrorOf, badRequest } from '../errors.ts';
import { readBody, parseJsonBody } from './body.ts';
import type { YogaServer } from './graphql.ts';
import { admit } from './admit.ts';
import { wantsGraphiQL } from './docs.ts';
import { requestScope } from './request-scope.ts';
import { isStreamed, readAnswer, sendAnswer, sendError, sendJson, streamAnswer } from './respond.ts';
import { liftDatabaseBudget } from '../db/deadline.ts';
import { dispatchBinary } from './binary-routes.ts';
import type { V1Route } from './rest-routes.ts';
import { noRoute, type RouteMatch, type Router } from './router.ts';
import { restVariables } from './rest-variables.ts';
import type { SofaHandler } from './sofa-handlers.ts';
import { conditionalRead } from './conditional.ts';

/**
 * The customer API's HTTP pipeline for /v1 (REST) and /graphql, top to bottom:
 * 1. route (REST): one match against the /v1 table (rest-routes.ts);
 * 2. admit: authenticate, count the per-credential rate limit (admit.ts; a conditional read is
 *    counted once its answer is known, as a 304 is free); then the match decides 404, 405, a
 *    binary stream (leaves here), or the operation, whose query parameters and body fields must
 *    be its arguments;
 * 3. body: read within the size limit and parsed once (body.ts);
 * 4. REST: the variables built once (rest-variables.ts), then sofa's generated router
 *    (sofa-handlers.ts); GraphQL: yoga.handleRequest, handed the parsed body
 *    (plugins/parsed-body.ts). Only the libraries' public APIs: nothing private read or patched;
 * 5. both execute through the same yoga/envelop plugins (graphql.ts: limits, input errors and
 *    rules, rate-limit classes, idempotency, scope-auth, error masking);
 * 6. a REST GET's answer gets its ETag, or becomes a 304 (conditional.ts); a streamed answer
 *    (a subscription over SSE) is sent as it comes (respond.ts).
 */
export function createApiHandler(
  app: App,
  yoga: YogaServer,
  routes: Router<V1Route>,
  sofa: SofaHandler,
  openApi: () => object,
  graphiql: (req: IncomingMessage, res: ServerResponse) => void,
) {
  // yoga's own Fetch API (whatwg-node's, lazier than Node's built-in Request and Headers): what it and sofa read.
  const { Request: FetchRequest, Headers: FetchHeaders } = yoga.fetchAPI;
  const headersOf = (req: IncomingMessage) => toHeaders(req, new FetchHeaders());
  return async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    surface: 'rest' | 'graphql',
  ): Promise<void> {
    const scope = requestScope.getStore()!;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    // `/v1/servers/` is `/v1/servers`: the route table allows the slash and sofa must see the same path.
    if (surface === 'rest' && url.pathname.length > 4 && url.pathname.endsWith('/'))
      url.pathname = url.pathname.replace(/\/+$/, '');

    // The OpenAPI document is public: it describes the API, not an account.
    if (surface === 'rest' && url.pathname === '/v1/openapi.json') {
      scope.operation = 'openapi';
      if (method !== 'GET') return sendError(res, surface, new ApiError(405, 'Use GET.'), { Allow: 'GET' });
      return sendJson(res, 200, openApi());
    }

    // A browser opening /graphql gets GraphiQL, a public page like the OpenAPI document.
    if (surface === 'graphql' && wantsGraphiQL(req)) return graphiql(req, res);

    const match = surface === 'rest' ? routes.match(method, url.pathname) : undefined;
    const admission = await admit(app, req, { conditional: isConditionalRead(req, match) });
    const { principal, refusal } = admission;
    let limitHeaders = admission.limitHeaders;
    const fail = (error: ApiError) => sendError(res, surface, error, limitHeaders);
    if (refusal) return fail(refusal);
    // A conditional read is counted by its outcome (a 304 is free): admit.ts.
    const counted = async (status: number): Promise<ApiError | undefined> => {
      if (!admission.countOutcome) return undefined;
      const outcome = await admission.countOutcome(status);
      limitHeaders = outcome.limitHeaders;
      return outcome.refusal;
    };

    try {
      let restArgs: Set<string> | undefined;
      let restMatch: { operation: NonNullable<V1Route['operation']>; params: Record<string, string> } | undefined;
      if (match) {
        if (match.kind !== 'found') return fail(noRoute(match, method, url.pathname));
        const { route, params } = match;
        if (route.binary) {
          scope.operation = route.binary.operationId;
          return await dispatchBinary(app, principal, route.binary, params, req, res, url, limitHeaders);
        }
        scope.operation = route.operation.name;
        restMatch = { operation: route.operation, params };
        restArgs = new Set(route.operation.field.args.map((a) => a.name));
        for (const name of url.searchParams.keys()) {
          if (!restArgs.has(name)) throw badRequest(`Unknown query parameter "${name}".`, name);
        }
      }
      const raw =
        method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, app.config.bodyLimitBytes);
      const parsed = parseJsonBody(req, raw);
      if (restArgs && parsed !== undefined) {
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw badRequest('The request body must be a JSON object.');
        for (const name of Object.keys(parsed)) {
          if (!restArgs.has(name)) throw badRequest(`Unknown body field "${name}".`, name);
        }
      }
      const responseHeaders = new FetchHeaders();
      const server = { app, principal, requestId: scope.requestId, log: scope.log, responseHeaders };
      let response: Response;
      if (restMatch) {
        const restVars = restVariables(
          restMatch.operation,
          restMatch.params,
          url.searchParams,
          parsed as Record<string, unknown> | undefined,
        );
        // Headers only: the variables are the ones just built (sofa-handlers.ts).
        const request = new FetchRequest(`${url.origin}${url.pathname}`, { method, headers: headersOf(req) });
        response = await sofa(request, { ...server, restVariables: restVars });
      } else {
        // The body is handed over parsed (plugins/parsed-body.ts), never read and parsed again.
        response = await yoga.handleRequest(new FetchRequest(url.href, { method, headers: headersOf(req) }), {
          ...server,
          jsonBody: parsed,
        });
      }
      if (isStreamed(response)) {
        liftDatabaseBudget();
        return await streamAnswer(res, response, { ...limitHeaders, ...Object.fromEntries(responseHeaders) });
      }
      let answer = await readAnswer(response);
      if (restMatch && method === 'GET') answer = conditionalRead(req.headers['if-none-match'], answer);
      const over = await counted(answer.status);
      if (over) return fail(over);
      sendAnswer(res, answer, { ...limitHeaders, ...Object.fromEntries(responseHeaders) });
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) throw err;
      // A streamed answer that failed half-way cannot be turned into an error body.
      if (res.headersSent) return void res.destroy();
      if (api.status === 413) res.setHeader('Connection', 'close');
      fail((await counted(api.status)) ?? api);
    }
  };
}

/** A read of /v1 that may end in 304 (conditional.ts): an operation's GET with If-None-Match (binary streams have no ETag). */
function isConditionalRead(req: IncomingMessage, match: RouteMatch<V1Route> | undefined): boolean {
  return (
    req.headers['if-none-match'] !== undefined &&
    match?.kind === 'found' &&
    match.route.method === 'GET' &&
    !match.route.binary
  );
}

function toHeaders(req: IncomingMessage, headers: Headers = new Headers()): Headers {
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key === 'content-length' || key === 'transfer-encoding' || key === 'connection')
      continue;
    headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
