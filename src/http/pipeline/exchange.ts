import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { withDatabaseBudget } from '../../core/database-budget.ts';
import { withOutsideWaits } from '../../core/outside-waits.ts';
import { ApiError, apiErrorOf, unexpectedError } from '../../errors.ts';
import type { Principal } from '../../modules/auth/service.ts';
import type { BinaryRoute } from '../../schema/binary-operation.ts';
import type { Operation } from '../../schema/operation.ts';
import type { Admission } from '../admission/admit.ts';
import type { Release } from '../admission/overload.ts';
import { requestScope, type RequestScope } from '../request/request-scope.ts';
import { type Answer, sendError, type Surface } from '../request/respond.ts';

/**
 * What the route stage decided a request is. Every later stage reads it: admission (who may
 * call), the body, the variables, what executes, whether the answer may be a 304, and the shape
 * of its errors.
 */
export type Route =
  /** A /v1 operation of the schema, executed through sofa's generated handler. */
  | { kind: 'operation'; operation: Operation; params: Record<string, string> }
  /**
   * A binary stream (hosting files): checked like an operation, streamed by its module. At /v1
   * with a Bearer credential; the same route at /dashboard/api/v1 (`viaDashboard`) with the
   * session cookie and its CSRF header.
   */
  | { kind: 'binary'; binary: BinaryRoute; params: Record<string, string>; viaDashboard?: true }
  | { kind: 'graphql' }
  | { kind: 'mcp' }
  /** An operator API route (/admin); `handle` answers `[status, body]`. */
  | { kind: 'admin'; handle: AdminHandle; params: Record<string, string> }
  /** /healthz, /readyz (public) and /metrics (operator). */
  | { kind: 'ops'; path: '/healthz' | '/readyz' | '/metrics' }
  /** A public JSON document (/v1/openapi.json). */
  | { kind: 'document'; document: () => object }
  /** A page or flow with its own handler and rules (dashboard, docs, GraphiQL, OAuth, inbound hooks). */
  | { kind: 'page'; serve: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void }
  /** No route takes the request (404, 405): answered once the caller is admitted, as a route would be. */
  | { kind: 'unrouted'; surface: 'rest' | 'admin'; error: ApiError };

type AdminHandle = (
  app: App,
  params: Record<string, string>,
  body: Record<string, unknown>,
) => Promise<[number, unknown]>;

/** One request as it passes the stages: each stage reads what the ones before it set. */
export interface Exchange {
  readonly app: App;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The request id, its logger and its metrics label (set by the observe stage), for deep code too. */
  readonly scope: RequestScope;
  /** The request target's path as sent (what routing reads), and the target parsed. */
  readonly path: string;
  readonly url: URL;
  readonly method: string;
  route?: Route;
  principal: Principal | null;
  /** X-RateLimit-* (and Retry-After) for the answer, whatever it is. */
  limitHeaders: Record<string, string>;
  /** A conditional read is counted by its outcome (admission/admit.ts): the respond stage calls this with the status. */
  countOutcome?: Admission['countOutcome'];
  /** An MCP message is counted by what its body says it is (admission/admit.ts): the count stage calls this. */
  countMessage?: Admission['countMessage'];
  /** The parsed JSON body, `undefined` when there is none. */
  body: unknown;
  /** The operation's variables (REST: from path, query and body; the operator API: its body). */
  variables: Record<string, unknown>;
  /** Headers the execution adds to the answer (idempotency's). */
  readonly responseHeaders: Headers;
  /** Set by the stage that settles the request: an answer, an error, a stream, or `sent` when a handler wrote it. */
  answer?: Answer;
  error?: ApiError;
  stream?: Response;
  sent: boolean;
  /** Microseconds each stage took, in order (exported as `http_stage_duration_seconds`). */
  readonly timings: [stage: string, microseconds: number][];
  /** The slots the request holds (the instance's, its credential's): given back once it has executed. */
  readonly releases: Release[];
  /** The instance's slot among them (shed), for a request that goes on to wait rather than work (yieldInstanceSlot). */
  instanceSlot?: Release;
}

/** Every stage has this one signature: it reads and sets the exchange, and throws an ApiError to refuse. */
export type Stage = (x: Exchange) => Promise<void> | void;

export interface NamedStage {
  name: string;
  run: Stage;
  /** Runs once the request is settled too (the others are skipped once a stage has answered or refused). */
  finishing?: true;
}

/**
 * What each kind of route asks of the stages, in one place: who the admit stage asks for (a
 * customer's credential and its rate limit, the operator token, or nobody), whether the body
 * stage reads a JSON body, and the shape the respond stage gives its errors.
 */
interface RouteTraits {
  /** `session`: a customer through the dashboard's session (cookie + CSRF header), never a Bearer credential. */
  admission: 'customer' | 'session' | 'operator' | 'none';
  jsonBody: boolean;
  surface: Surface;
}

export function traitsOf(route: Route | undefined): RouteTraits {
  switch (route?.kind) {
    case 'operation':
      return { admission: 'customer', jsonBody: true, surface: 'rest' };
    case 'binary':
      return { admission: route.viaDashboard ? 'session' : 'customer', jsonBody: false, surface: 'rest' };
    case 'graphql':
      return { admission: 'customer', jsonBody: true, surface: 'graphql' };
    case 'mcp':
      return { admission: 'customer', jsonBody: true, surface: 'mcp' };
    case 'admin':
      return { admission: 'operator', jsonBody: true, surface: 'admin' };
    case 'ops':
      return { admission: route.path === '/metrics' ? 'operator' : 'none', jsonBody: false, surface: 'ops' };
    case 'unrouted':
      return route.surface === 'admin'
        ? { admission: 'operator', jsonBody: false, surface: 'admin' }
        : { admission: 'customer', jsonBody: false, surface: 'rest' };
    default:
      return { admission: 'none', jsonBody: false, surface: 'rest' };
  }
}

/** The error shape the request's answer takes: GraphQL's `errors`, or the spec's error object. */
export function surfaceOf(x: Exchange): Surface {
  return traitsOf(x.route).surface;
}

function settled(x: Exchange): boolean {
  return x.sent || x.answer !== undefined || x.error !== undefined || x.stream !== undefined;
}

/**
 * Runs the stages in order over one request, inside the request's scope, its way to wait
 * outside (core/outside-waits.ts) and its database budget (core/database-budget.ts). A thrown
 * ApiError settles the request with that error; anything else is an unexpected failure (500,
 * logged; a 503 when the database is away, counted by its outage), or, when the client has
 * gone, an abort.
 */
export function runStages(stages: readonly NamedStage[], x: Exchange): Promise<void> {
  return requestScope.run(x.scope, () => withOutsideWaits(() => withDatabaseBudget(() => runEach(stages, x))));
}

async function runEach(stages: readonly NamedStage[], x: Exchange): Promise<void> {
  for (const stage of stages) {
    if (settled(x) && !stage.finishing) continue;
    const started = performance.now();
    try {
      await stage.run(x);
    } catch (err) {
      failed(x, err, stage);
    }
    x.timings.push([stage.name, Math.round((performance.now() - started) * 1000)]);
  }
  x.app.metrics.observeStages(x.timings);
}

function failed(x: Exchange, err: unknown, stage: NamedStage): void {
  // The client went away (or was cut off by the request timeout) while its body was read:
  // nobody is left to answer, and it says nothing about the database.
  if (!x.req.complete && x.req.destroyed) {
    x.scope.log.info({ code: (err as NodeJS.ErrnoException)?.code }, 'request aborted by the client');
    x.res.destroy();
    x.sent = true;
    return;
  }
  let error = apiErrorOf(err);
  if (!error) {
    error = unexpectedError(err);
    // An expected 503 (the database is away) is one line per outage, not a stack trace per request.
    if (error.status === 503) x.app.outages.database.failed(err);
    else if (error.status >= 500) x.scope.log.error({ err }, 'unhandled error');
  }
  // A finishing stage that failed has nothing after it to answer: answer here, or cut the connection.
  if (stage.finishing) {
    if (x.res.headersSent) x.res.destroy();
    else sendError(x.res, surfaceOf(x), error);
    x.sent = true;
    return;
  }
  x.error = error;
  x.answer = undefined;
  x.stream = undefined;
}

/** A new exchange for a request; the observe stage gives it its id and logger. */
export function newExchange(app: App, req: IncomingMessage, res: ServerResponse): Exchange {
  return {
    app,
    req,
    res,
    scope: { requestId: '', log: app.log, operation: 'unmatched', outages: app.outages },
    path: (req.url ?? '/').split('?')[0],
    url: parsedTarget(req.url ?? '/'),
    method: req.method ?? 'GET',
    principal: null,
    limitHeaders: {},
    body: undefined,
    variables: {},
    responseHeaders: new Headers(),
    sent: false,
    timings: [],
    releases: [],
  };
}

/** A 405 naming the methods a path takes. */
export function methodNotAllowed(message: string, allow: string): ApiError {
  return new ApiError(405, message, { headers: { Allow: allow } });
}

/** The request target as a URL; one that does not parse (a malformed absolute form) reads as `/`, which routes nowhere in the API. */
function parsedTarget(target: string): URL {
  try {
    return new URL(target, 'http://localhost');
  } catch {
    return new URL('/', 'http://localhost');
  }
}
