import type { IncomingMessage } from 'node:http';
import { headerOf } from '../admission/admit.ts';
import { liftDatabaseBudget } from '../../core/database-budget.ts';
import { dispatchBinary } from '../rest/binary-routes.ts';
import type { YogaServer } from '../graphql/graphql.ts';
import { opsAnswer } from '../operator/ops.ts';
import type { Executor } from '../executor/index.ts';
import { isStreamed, jsonAnswer, readAnswer } from '../request/respond.ts';
import { refusalOf } from '../rest/rest-errors.ts';
import type { Exchange, Stage } from './exchange.ts';

/** What executes the routes: the one executor (src/http/executor), yoga for GraphQL over HTTP, the MCP server for /mcp. */
export interface Executors {
  executor: Executor;
  yoga: YogaServer;
  mcp: (x: Exchange) => Promise<void>;
}

/**
 * Stage 9, execute: the route runs. A /v1 operation runs its compiled REST projection through
 * the executor's stages (src/http/executor/index.ts) with the variables already built, and its
 * refusal is the respond stage's to shape; GraphQL goes through yoga.handleRequest with the body
 * already parsed (plugins/parsed-body.ts), yoga parsing and validating and handing execution to
 * the same executor, and is read once into an answer (a subscription over SSE is kept as a
 * stream). MCP, binary streams and pages write their own answers; the operator API and the
 * probes answer JSON.
 */
export function execute(executors: Executors): Stage {
  const { yoga, executor } = executors;
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
        const { operation } = route;
        const result = await executor.operation(operation, x.variables, {
          ...server(),
          idempotencyKey: headerOf(req, 'idempotency-key'),
        });
        if (result.errors?.length) throw refusalOf(result.errors);
        x.answer = jsonAnswer(200, result.data?.[operation.name] ?? null);
        return;
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
