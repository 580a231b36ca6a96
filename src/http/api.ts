import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { admit } from './pipeline/admit.ts';
import { body } from './pipeline/body.ts';
import { concurrency } from './pipeline/concurrency.ts';
import { conditional } from './pipeline/conditional.ts';
import { count } from './pipeline/count.ts';
import { type NamedStage, newExchange, runStages } from './pipeline/exchange.ts';
import { type Executors, execute } from './pipeline/execute.ts';
import { observe } from './pipeline/observe.ts';
import { release } from './pipeline/release.ts';
import { respond } from './pipeline/respond.ts';
import { type RouteTable, route } from './pipeline/route.ts';
import { shed } from './pipeline/shed.ts';
import { variables } from './pipeline/variables.ts';

/**
 * The request pipeline: every HTTP request (REST /v1, GraphQL, MCP, the operator API, the
 * probes, and the pages and flows with handlers of their own) passes these stages in this
 * order, each one file with one signature, `(exchange) => void | Promise<void>`
 * (pipeline/exchange.ts). A stage that answers or refuses settles the request: the stages after
 * it are skipped but the finishing ones. Each stage's time is measured (exported as
 * `http_stage_duration_seconds`; bench/README.md: Pipeline stages).
 */
export function createPipeline(app: App, table: RouteTable, executors: Executors) {
  const stages: readonly NamedStage[] = [
    // request id, access log line and metrics sample, the headers every answer carries
    { name: 'observe', run: observe },
    // what the request is: a /v1 operation or binary stream, GraphQL, MCP, /admin, a probe, a page
    { name: 'route', run: route(table) },
    // a slot of the instance, or 503 at once when none can be had in time (reads shed first)
    { name: 'shed', run: shed },
    // the credential and its rate limit (customers), or the operator token
    { name: 'admit', run: admit },
    // the credential's share of the slots (429 past it)
    { name: 'concurrency', run: concurrency },
    // the JSON body within the size limit, parsed once
    { name: 'body', run: body },
    // an MCP message's rate point, by what its body is (notifications, initialize, ping, listings: none)
    { name: 'count', run: count },
    // a /v1 operation's variables from path, query and body; unknown parameters refused
    { name: 'variables', run: variables },
    // sofa's generated handler, yoga, the MCP server, the operator route, the page
    { name: 'execute', run: execute(executors) },
    // the slots go back: what follows only writes the answer
    { name: 'release', run: release, finishing: true },
    // ETag and 304 for a /v1 read
    { name: 'conditional', run: conditional, finishing: true },
    // the answer or the error, in the surface's shape, with the rate-limit headers
    { name: 'respond', run: respond, finishing: true },
  ];
  return (req: IncomingMessage, res: ServerResponse): Promise<void> => runStages(stages, newExchange(app, req, res));
}
