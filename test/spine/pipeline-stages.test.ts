import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app-services.ts';
import { adminRouter } from '../../src/http/operator/admin.ts';
import { createGraphQLServer } from '../../src/http/graphql/graphql.ts';
import { buildOpenApi } from '../../src/http/rest/openapi.ts';
import { v1Router } from '../../src/http/rest/rest-routes.ts';
import { createExecutor } from '../../src/http/executor/index.ts';
import { admit } from '../../src/http/pipeline/admit.ts';
import { body } from '../../src/http/pipeline/body.ts';
import { concurrency } from '../../src/http/pipeline/concurrency.ts';
import { conditional } from '../../src/http/pipeline/conditional.ts';
import {
  type Exchange,
  type NamedStage,
  newExchange,
  runStages,
  type Stage,
} from '../../src/http/pipeline/exchange.ts';
import { execute } from '../../src/http/pipeline/execute.ts';
import { observe } from '../../src/http/pipeline/observe.ts';
import { release } from '../../src/http/pipeline/release.ts';
import { respond } from '../../src/http/pipeline/respond.ts';
import { route, type RouteTable } from '../../src/http/pipeline/route.ts';
import { shed } from '../../src/http/pipeline/shed.ts';
import { variables } from '../../src/http/pipeline/variables.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { ADMIN_TOKEN, type Customer, startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * One test per stage of the request pipeline (src/http/api.ts), each stage run on its own over
 * real HTTP requests against a real app's parts: a small server on 127.0.0.1 runs the stages
 * under test and answers what they left on the exchange (the route, the caller, the body, the
 * variables, the answer or the error). The whole pipeline is what every other black-box test
 * calls.
 */

let app: TestApp;
let parts: App;
let customer: Customer;
let table: RouteTable;
let runExecute: Stage;
/** Pages a route sends to a handler of its own: which one served it. */
const pageServed = (name: string) => (_req: IncomingMessage, res: ServerResponse) => void res.end(`page:${name}`);

beforeAll(async () => {
  app = await startTestApp();
  parts = app.running.app;
  customer = await app.customer({ scopes: ['servers:read', 'account:read'] });
  const executor = await createExecutor(parts.schema);
  const yoga = createGraphQLServer(parts.schema, executor);
  table = {
    v1: v1Router(parts.schema),
    admin: adminRouter,
    openApi: () => buildOpenApi(restView(parts.schema)),
    graphiql: pageServed('graphiql'),
    oauth: pageServed('oauth'),
    hooks: pageServed('hooks'),
    serverConsole: pageServed('serverConsole'),
    terminal: pageServed('terminal'),
    docs: pageServed('docs'),
    dashboard: pageServed('dashboard'),
  };
  runExecute = execute({
    executor,
    yoga,
    mcp: async (x) => void x.res.end('mcp'),
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** What the stages left on the exchange, as the test server answers it. */
interface Left {
  route?: string;
  operation: string;
  principal: string | null;
  limited: boolean;
  body: unknown;
  variables: Record<string, unknown>;
  answer?: { status: number; headers: Record<string, unknown>; body: string };
  error?: { status: number; message: string; headers: unknown };
  timings: string[];
}

const report: Stage = (x: Exchange) => {
  if (x.sent) return;
  const left: Left = {
    route: x.route?.kind,
    operation: x.scope.operation,
    principal: x.principal?.accountId ?? null,
    limited: 'X-RateLimit-Limit' in x.limitHeaders,
    body: x.body,
    variables: x.variables,
    answer: x.answer && { ...x.answer, body: String(x.answer.body) },
    error: x.error && { status: x.error.status, message: x.error.message, headers: x.error.extensions.http },
    timings: x.timings.map(([name]) => name),
  };
  x.sent = true;
  x.res.writeHead(299, { 'Content-Type': 'application/json' }).end(JSON.stringify(left));
};

/** Sends one request through `stages` (and the report), answering what they left; `respond` among them answers itself. */
async function through(
  stages: Stage[],
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; left: Left; text: string }> {
  // As in api.ts: once a stage settles the request, only the finishing stages run.
  const named: NamedStage[] = stages.map((run, i) =>
    run === conditional || run === respond || run === release
      ? { name: run.name, run, finishing: true }
      : { name: `stage${i}`, run },
  );
  named.push({ name: 'report', run: report, finishing: true });
  const server = http.createServer((req, res) => void runStages(named, newExchange(parts, req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: init.headers, body: init.body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, left: res.status === 299 ? JSON.parse(text) : undefined, text };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const routeStage = () => route(table);
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const json = { 'Content-Type': 'application/json' };

/** The pipeline's stages in api.ts's order. */
const STAGE_NAMES = [
  'observe',
  'route',
  'shed',
  'admit',
  'concurrency',
  'body',
  'count',
  'variables',
  'execute',
  'release',
  'conditional',
  'respond',
];

describe('the pipeline as api.ts lists it', () => {
  it('runs the stages in the documented order, and every stage file is in the list', () => {
    const source = fs.readFileSync('src/http/api.ts', 'utf8');
    const listed = [...source.matchAll(/\{ name: '(\w+)', run: /g)].map((m) => m[1]);
    expect(listed).toEqual(STAGE_NAMES);
    const files = fs
      .readdirSync('src/http/pipeline')
      .map((f) => f.replace(/\.ts$/, ''))
      .filter((f) => f !== 'exchange');
    expect(files.sort()).toEqual([...listed].sort());
  });

  it('measures every stage a request passes, exported per stage in /metrics', async () => {
    await app.call('GET', '/v1/servers', { key: customer.key });
    const metrics = await app.call('GET', '/metrics', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    for (const stage of STAGE_NAMES)
      expect(metrics.text).toMatch(new RegExp(`http_stage_duration_seconds_count\\{stage="${stage}"\\} [1-9]`));
  });
});

describe('observe', () => {
  it('gives the request an id (the client’s when valid), the common headers, and one log line', async () => {
    const given = await through([observe], 'GET', '/anything', { headers: { 'X-Request-Id': 'client-id.1' } });
    expect(given.headers.get('x-request-id')).toBe('client-id.1');
    expect(given.headers.get('api-version')).toBeTruthy();
    expect(given.headers.get('x-content-type-options')).toBe('nosniff');
    await new Promise((r) => setTimeout(r, 20));
    expect(app.logs.some((l) => l.includes('"requestId":"client-id.1"') && l.includes('"msg":"request"'))).toBe(true);
    const invalid = await through([observe], 'GET', '/anything', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(invalid.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('route', () => {
  const cases: [method: string, path: string, kind: string, operation: string][] = [
    ['GET', '/v1/servers', 'operation', 'servers'],
    ['GET', '/v1/servers/', 'operation', 'servers'],
    ['GET', '/v1/servers/srv_0000000000', 'operation', 'server'],
    ['GET', '/v1/no-such-thing', 'unrouted', 'unmatched'],
    ['GET', '/v1/openapi.json', 'document', 'openapi'],
    ['POST', '/graphql', 'graphql', 'graphql'],
    ['POST', '/mcp', 'mcp', 'mcp'],
    ['GET', '/admin/catalogue', 'admin', 'admin GET /admin/catalogue'],
    ['GET', '/admin/nothing', 'unrouted', 'unmatched'],
    ['GET', '/readyz', 'ops', 'readyz'],
    ['GET', '/docs', 'page', 'unmatched'],
    // The binary streams again for the dashboard's session; its operations stay on /graphql.
    ['GET', '/dashboard/api/v1/hosting/hst_1/files/download', 'binary', 'dashboard hostingFileDownload'],
    ['POST', '/dashboard/api/v1/hosting/hst_1/files/upload', 'binary', 'dashboard hostingFileUpload'],
    ['GET', '/dashboard/api/v1/hosting/hst_1/files', 'page', 'unmatched'],
  ];
  it.each(cases)('%s %s is %s (%s)', async (method, path, kind, operation) => {
    const { left } = await through([routeStage()], method, path);
    expect(left.route).toBe(kind);
    expect(left.operation).toBe(operation);
  });

  it('sends each page to its own handler, GraphiQL to a browser, and refuses what needs no credential to refuse', async () => {
    const page = async (path: string, headers?: Record<string, string>) =>
      (await through([routeStage(), runExecute], 'GET', path, { headers })).text;
    expect(await page('/oauth/authorize')).toBe('page:oauth');
    expect(await page('/.well-known/oauth-protected-resource/mcp')).toBe('page:oauth');
    expect(await page('/.well-known/oauth-other')).toBe('page:dashboard');
    expect(await page('/hooks/git/hst_1')).toBe('page:hooks');
    expect(await page('/ssh-terminal/hss_1')).toBe('page:terminal');
    expect(await page('/swagger')).toBe('page:docs');
    expect(await page('/graphql', { Accept: 'text/html' })).toBe('page:graphiql');
    const wrongMethod = await through([routeStage()], 'POST', '/v1/openapi.json');
    expect(wrongMethod.left.error).toMatchObject({ status: 405, headers: { headers: { Allow: 'GET' } } });
    const foreign = await through([routeStage()], 'POST', '/mcp', { headers: { Origin: 'http://evil.example' } });
    expect(foreign.left.error?.status).toBe(403);
  });
});

describe('admit', () => {
  it('resolves a customer’s credential and counts it; refuses a bad one; asks the operator for /admin', async () => {
    const known = await through([routeStage(), admit], 'GET', '/v1/servers', { headers: bearer(customer.key) });
    expect(known.left).toMatchObject({ principal: customer.accountId, limited: true });
    expect(known.left.error).toBeUndefined();
    const anonymous = await through([routeStage(), admit], 'GET', '/v1/servers');
    expect(anonymous.left).toMatchObject({ principal: null, limited: true });
    const unknown = await through([routeStage(), admit], 'GET', '/v1/servers', { headers: bearer('svc_nope') });
    expect(unknown.left.error?.status).toBe(401);
    const operator = await through([routeStage(), admit], 'GET', '/admin/catalogue', { headers: bearer(customer.key) });
    expect(operator.left.error?.status).toBe(401);
    const admitted = await through([routeStage(), admit], 'GET', '/admin/catalogue', { headers: bearer(ADMIN_TOKEN) });
    expect(admitted.left.error).toBeUndefined();
    const probe = await through([routeStage(), admit], 'GET', '/healthz');
    expect(probe.left).toMatchObject({ limited: false });
    expect(probe.left.error).toBeUndefined();
  });
});

describe('shed', () => {
  it('takes a slot of the instance; when all are taken, refuses a read at once with 503 OVERLOADED', async () => {
    const { maxInFlight } = parts.overload.limits;
    const taken = await Promise.all(Array.from({ length: maxInFlight }, () => parts.overload.acquire('write')));
    try {
      const read = await through([routeStage(), shed], 'GET', '/v1/servers');
      expect(read.left.error).toMatchObject({ status: 503, headers: { headers: { 'Retry-After': '1' } } });
      expect(read.left.error?.message).toMatch(/overloaded/);
      // Health never waits for a slot.
      expect((await through([routeStage(), shed], 'GET', '/healthz')).left.error).toBeUndefined();
    } finally {
      for (const give of taken) give();
    }
    const served = await through([routeStage(), shed, release], 'GET', '/v1/servers');
    expect(served.left.error).toBeUndefined();
    expect(parts.overload.state().inFlight).toBe(0);
  });
});

describe('concurrency', () => {
  it("refuses a credential's request past its share of slots with 429 TOO_MANY_CONCURRENT_REQUESTS", async () => {
    const stages = [routeStage(), admit, concurrency];
    const entered = Array.from({ length: parts.overload.limits.maxInFlightPerCredential }, () =>
      parts.overload.enterCredential(customer.keyId, 'read'),
    );
    try {
      const refused = await through(stages, 'GET', '/v1/servers', { headers: bearer(customer.key) });
      expect(refused.left.error).toMatchObject({ status: 429, headers: { headers: { 'Retry-After': '1' } } });
      expect(refused.left.error?.message).toMatch(/concurrent requests for this credential/);
    } finally {
      for (const give of entered) give();
    }
    const admitted = await through([...stages, release], 'GET', '/v1/servers', { headers: bearer(customer.key) });
    expect(admitted.left.error).toBeUndefined();
  });
});

describe('release', () => {
  it('gives back every slot the request held, however it was settled', async () => {
    const refusedLater = await through([routeStage(), shed, admit, concurrency, release], 'GET', '/v1/servers', {
      headers: bearer('svc_not_a_key'),
    });
    expect(refusedLater.left.error?.status).toBe(401);
    const ok = await through([routeStage(), shed, admit, concurrency, release], 'GET', '/v1/servers', {
      headers: bearer(customer.key),
    });
    expect(ok.left.timings).toContain('release');
    expect(parts.overload.state()).toMatchObject({ inFlight: 0, queued: 0 });
  });
});

describe('body', () => {
  it('parses a JSON body once, refuses another type (415), and reads none for a GET', async () => {
    const stages = [routeStage(), body];
    const parsed = await through(stages, 'POST', '/graphql', { headers: json, body: '{"query":"{ a }"}' });
    expect(parsed.left.body).toEqual({ query: '{ a }' });
    const text = await through(stages, 'POST', '/graphql', { headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    expect(text.left.error?.status).toBe(415);
    const broken = await through(stages, 'POST', '/graphql', { headers: json, body: '{' });
    expect(broken.left.error?.status).toBe(400);
    const read = await through(stages, 'GET', '/v1/servers');
    expect(read.left.body).toBeUndefined();
  });

  it('stops reading past the size limit (413)', async () => {
    const big = 'x'.repeat(parts.config.bodyLimitBytes + 1);
    const over = await through([routeStage(), body], 'POST', '/graphql', { headers: json, body: `"${big}"` });
    expect(over.left.error?.status).toBe(413);
  });
});

describe('variables', () => {
  const stages = () => [routeStage(), body, variables];
  it('builds a /v1 operation’s variables from path and query, typed by its arguments', async () => {
    const list = await through(stages(), 'GET', '/v1/servers?limit=10');
    expect(list.left.variables).toEqual({ limit: 10 });
    const one = await through(stages(), 'GET', '/v1/servers/srv_0000000000');
    expect(one.left.variables).toEqual({ id: 'srv_0000000000' });
  });

  it('refuses an unknown query parameter or body field, naming it, and a body that is no object', async () => {
    const query = await through(stages(), 'GET', '/v1/servers?colour=red');
    expect(query.left.error).toMatchObject({ status: 400, message: 'Unknown query parameter "colour".' });
    const field = await through(stages(), 'POST', '/v1/servers/srv_0000000000/power/stop', {
      headers: json,
      body: '{"force":true}',
    });
    expect(field.left.error).toMatchObject({ status: 400, message: 'Unknown body field "force".' });
    const admin = await through(stages(), 'POST', '/admin/accounts', { headers: json, body: '[1]' });
    expect(admin.left.error).toMatchObject({ status: 400, message: 'The request body must be a JSON object.' });
    const text = await through(stages(), 'GET', '/v1/servers?limit=ten');
    expect(text.left.error?.status).toBe(400);
  });
});

describe('execute', () => {
  const stages = () => [routeStage(), admit, body, variables, runExecute];
  it('runs a /v1 operation through sofa and a GraphQL document through yoga, into one answer each', async () => {
    const rest = await through(stages(), 'GET', '/v1/servers', { headers: bearer(customer.key) });
    expect(rest.left.answer?.status).toBe(200);
    expect(JSON.parse(rest.left.answer?.body ?? '')).toEqual({ data: [], hasMore: false, nextCursor: null });
    const graphql = await through(stages(), 'POST', '/graphql', {
      headers: { ...json, ...bearer(customer.key) },
      body: JSON.stringify({ query: '{ account { id } }' }),
    });
    expect(JSON.parse(graphql.left.answer?.body ?? '')).toEqual({ data: { account: { id: customer.accountId } } });
  });

  it('hands a refused operation on as its refusal, for the respond stage to shape', async () => {
    const missing = await through(stages(), 'GET', '/v1/servers/srv_0000000000', { headers: bearer(customer.key) });
    expect(missing.left.answer).toBeUndefined();
    expect(missing.left.error).toMatchObject({ status: 404, message: 'Server not found.' });
    const unscoped = await through(stages(), 'GET', '/v1/tickets', { headers: bearer(customer.key) });
    expect(unscoped.left.error).toMatchObject({
      status: 403,
      message: 'This credential lacks the scope "tickets:read".',
    });
  });

  it('answers the documents and probes, and a path no route takes with its 404 once admitted', async () => {
    const doc = await through(stages(), 'GET', '/v1/openapi.json');
    expect(JSON.parse(doc.left.answer?.body ?? '').openapi).toMatch(/^3\./);
    const probe = await through(stages(), 'GET', '/healthz');
    expect(probe.left.answer).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const none = await through(stages(), 'GET', '/v1/no-such-thing', { headers: bearer(customer.key) });
    expect(none.left.error?.status).toBe(404);
    expect(none.left.limited).toBe(true);
  });
});

describe('conditional', () => {
  it('tags a /v1 read and turns a matching If-None-Match into a 304; leaves writes alone', async () => {
    const stages = () => [routeStage(), admit, body, variables, runExecute, conditional];
    const first = await through(stages(), 'GET', '/v1/servers', { headers: bearer(customer.key) });
    const etag = first.left.answer?.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await through(stages(), 'GET', '/v1/servers', {
      headers: { ...bearer(customer.key), 'If-None-Match': etag },
    });
    expect(again.left.answer).toMatchObject({ status: 304, body: '' });
    const graphql = await through(stages(), 'POST', '/graphql', {
      headers: { ...json, ...bearer(customer.key) },
      body: JSON.stringify({ query: '{ account { id } }' }),
    });
    expect(graphql.left.answer?.headers.etag).toBeUndefined();
  });
});

describe('respond', () => {
  const stages = () => [routeStage(), admit, body, variables, runExecute, conditional, respond];
  it('sends errors in the surface’s shape, with the rate-limit headers', async () => {
    const rest = await through(stages(), 'GET', '/v1/no-such-thing', { headers: bearer(customer.key) });
    expect(rest.status).toBe(404);
    expect(JSON.parse(rest.text)).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    expect(rest.headers.get('x-ratelimit-limit')).toBeTruthy();
    const graphql = await through(stages(), 'POST', '/graphql', {
      headers: { 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect(graphql.status).toBe(415);
    expect(JSON.parse(graphql.text).errors[0].extensions).toMatchObject({ status: 415 });
  });

  it('adds MCP’s challenge to its 401 and closes the connection after a 413', async () => {
    const mcp = await through(stages(), 'POST', '/mcp', { headers: bearer('svc_nope') });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
    const big = 'x'.repeat(parts.config.bodyLimitBytes + 1);
    const over = await through(stages(), 'POST', '/graphql', { headers: json, body: `"${big}"` });
    expect(over.status).toBe(413);
    expect(over.headers.get('connection')).toBe('close');
  });

  it('sends an answer with its length and the execution’s headers, and a 304 without a body', async () => {
    const ok = await through(stages(), 'GET', '/v1/servers', { headers: bearer(customer.key) });
    expect(ok.status).toBe(200);
    expect(Number(ok.headers.get('content-length'))).toBe(Buffer.byteLength(ok.text));
    const etag = ok.headers.get('etag') as string;
    const same = await through(stages(), 'GET', '/v1/servers', {
      headers: { ...bearer(customer.key), 'If-None-Match': etag },
    });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
  });
});
