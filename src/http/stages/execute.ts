import type { IncomingMessage } from 'node:http';
import { liftDatabaseBudget } from '../../db/deadline.ts';
import { dispatchBinary } from '../binary-routes.ts';
import type { YogaServer } from '../graphql.ts';
import { opsAnswer } from '../ops.ts';
import { isStreamed, jsonAnswer, readAnswer } from '../respond.ts';
import { refusalAnswered } from '../rest-errors.ts';
import { type SofaHandler, sofaUrl } from '../sofa-handlers.ts';
import type { Exchange, Stage } from './exchange.ts';

/** What executes the routes: yoga for GraphQL, sofa's router for /v1 operations, the MCP server for /mcp. */
export interface Executors {
  yoga: YogaServer;
  sofa: SofaHandler;
  mcp: (x: Exchange) => Promise<void>;
}

/**
 * Stage 8, execute: the route runs. /v1 operations go through sofa's generated router
 * (sofa-handlers.ts) with the variables already built, GraphQL through yoga.handleRequest with
 * the body already parsed (plugins/parsed-body.ts); both then execute through the same envelop
 * plugins (graphql.ts: limits, input errors and rules, rate-limit classes, idempotency,
 * scope-auth, error masking) and are read once into an answer (a subscription over SSE is kept
 * as a stream). MCP, binary streams and pages write their own answers; the operator API and the
 * probes answer JSON. Only the libraries' public APIs: nothing private is read or patched.
 */
export function execute(executors: Executors): Stage {
  const { yoga, sofa } = executors;
  // yoga's own Fetch API (whatwg-node's, lazier than Node's built-in Request and Headers): what it and sofa read.
  const { Request: FetchRequest, Headers: FetchHeaders } = yoga.fetchAPI;
  const headersOf = (req: IncomingMessage) => toHeaders(req, new FetchHeaders());

  return async (x: Exchange) => {
    const route = x.route;
    if (!route) return;
    const { app, req, res, url } = x;
    const server = () => ({
      app,
      principal: x.principal,
      requestId: x.scope.requestId,
      log: x.scope.log,
      responseHeaders: x.responseHeaders,
    });
    switch (route.kind) {
      case 'operation': {
        // Headers only: the variables are the ones the variables stage built (sofa-handlers.ts).
        const request = new FetchRequest(sofaUrl(url.origin, route.operation), {
          method: x.method,
          headers: headersOf(req),
        });
        const response = await sofa(request, { ...server(), restVariables: x.variables });
        const refusal = refusalAnswered(response);
        if (refusal) throw refusal;
        return settleWith(x, response);
      }
      case 'graphql': {
        const request = new FetchRequest(url.href, { method: x.method, headers: headersOf(req) });
        return settleWith(x, await yoga.handleRequest(request, { ...server(), jsonBody: x.body }));
      }
      case 'binary':
        await dispatchBinary(app, x.principal, route.binary, route.params, req, res, url, x.limitHeaders);
        x.sent = true;
        return;
      case 'mcp':
        await executors.mcp(x);
        x.sent = true;
        return;
      case 'admin': {
        // The operator's clock advance runs due work of any size: no request budget on the database.
        liftDatabaseBudget();
        const [status, body] = await route.handle(app, route.params, x.variables);
        x.answer = jsonAnswer(status, body);
        return;
      }
      case 'ops':
        x.answer = await opsAnswer(app, route.path);
        return;
      case 'document':
        x.answer = jsonAnswer(200, route.document());
        return;
      case 'page':
        await route.serve(req, res);
        x.sent = true;
        return;
      case 'unrouted':
        throw route.error;
    }
  };
}

async function settleWith(x: Exchange, response: Response): Promise<void> {
  if (isStreamed(response)) x.stream = response;
  else x.answer = await readAnswer(response);
}

function toHeaders(req: IncomingMessage, headers: Headers): Headers {
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key === 'content-length' || key === 'transfer-encoding' || key === 'connection')
      continue;
    headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
