import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type Principal } from '../../src/modules/auth/service.ts';
import { resourceUrl } from '../../src/modules/oauth/resources.ts';
import { createGraphQLServer, type ServerContext, type YogaServer } from '../../src/http/graphql.ts';
import { graphqlHandler } from '../../src/http/graphql-handle.ts';
import { useParsedBody } from '../../src/http/plugins/parsed-body.ts';
import { requestScope } from '../../src/http/request-scope.ts';
import { createSchema, createYoga } from 'graphql-yoga';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

/**
 * /graphql is served by graphqlHandler (src/http/graphql-handle.ts): yoga's own request
 * parsing, execution and result processing without its Fetch adapter. Each request here goes
 * through both that handler and yoga.handleRequest, on one pipeline built as the app builds it,
 * and the answers must be the same: status, headers and body. The requests are reads and
 * refusals (a mutation would change what the second run sees).
 */
let app: TestApp;
let yoga: YogaServer;
let principal: Principal | null;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp();
  const customer = await app.customer();
  const created = await app.admin('POST', `/admin/accounts/${customer.accountId}/servers`, { productId: 'std-2c-4g-50', label: 'web-1', os: 'linux', osTemplate: 'ubuntu-24.04' });
  if (created.status !== 201) throw new Error(created.text);
  serverId = created.body.id;
  const running = app.running.app;
  yoga = createGraphQLServer(running.schema, () => running.limits);
  principal = await authenticate(running.prisma, `Bearer ${customer.key}`, running.clock.now(), resourceUrl(running.config.publicBaseUrl, 'graphql'), running.principals);
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

interface Case {
  name: string;
  method?: 'GET' | 'POST';
  /** The parsed JSON body, as the HTTP layer hands it over (undefined: none). */
  body?: unknown;
  search?: string;
  headers?: Record<string, string>;
  anonymous?: boolean;
}

const SERVER_QUERY = 'query One($id: ID!) { server(id: $id) { id label status ips { ip } } }';
const cases = (): Case[] => [
  { name: 'a read', body: { query: SERVER_QUERY, variables: { id: serverId } } },
  { name: 'a list with an operation name', body: { query: 'query A { servers(limit: 5) { data { id } hasMore } } query B { account { id } }', operationName: 'A' } },
  { name: 'an unknown operation name', body: { query: 'query A { account { id } }', operationName: 'Nope' } },
  { name: 'a not-found error', body: { query: SERVER_QUERY, variables: { id: 'srv_doesnotexist' } } },
  { name: 'a syntax error', body: { query: '{ account { id ' } },
  { name: 'a validation error', body: { query: '{ account { nope } }' } },
  { name: 'a variable of the wrong type', body: { query: SERVER_QUERY, variables: { id: { not: 'an id' } } } },
  { name: 'a missing variable', body: { query: SERVER_QUERY } },
  { name: 'over the alias limit', body: { query: `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: account { id }`).join(' ')} }` } },
  { name: 'over the depth limit', body: { query: `{ account { ${'servers(limit: 1) { data { account { '.repeat(4)}id${' } } }'.repeat(4)} } }` } },
  { name: 'no query', body: { variables: {} } },
  { name: 'a query that is not a string', body: { query: 42 } },
  { name: 'an unexpected parameter', body: { query: '{ account { id } }', extra: true } },
  { name: 'variables that are not an object', body: { query: '{ account { id } }', variables: [1] } },
  { name: 'a body that is not an object', body: 'text' },
  { name: 'a batch (off)', body: [{ query: '{ account { id } }' }] },
  { name: 'no credential', body: { query: '{ account { id } }' }, anonymous: true },
  { name: 'application/graphql-response+json, with an error', body: { query: '{ account { nope } }' }, headers: { accept: 'application/graphql-response+json' } },
  { name: 'application/graphql-response+json, a read', body: { query: SERVER_QUERY, variables: { id: serverId } }, headers: { accept: 'application/graphql-response+json' } },
  { name: 'a media type nobody serves', body: { query: '{ account { id } }' }, headers: { accept: 'image/png' } },
  { name: 'a GET read', method: 'GET', search: `?query=${encodeURIComponent('{ account { id } }')}` },
  { name: 'a mutation over GET', method: 'GET', search: `?query=${encodeURIComponent('mutation { closeTicket(id: "tkt_x") { id } }')}` },
  { name: 'a GET without a query', method: 'GET', search: '' },
];

describe('graphqlHandler answers as yoga.handleRequest does', () => {
  it('for reads, every refusal yoga makes, and content negotiation', async () => {
    const handle = graphqlHandler(yoga);
    const running = app.running.app;
    for (const c of cases()) {
      const method = c.method ?? 'POST';
      const request = () =>
        new yoga.fetchAPI.Request(`http://localhost/graphql${c.search ?? ''}`, {
          method,
          headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...c.headers },
        });
      const context = (): ServerContext & { jsonBody?: unknown } => ({
        app: running,
        principal: c.anonymous ? null : principal,
        requestId: 'req_same',
        log: running.log,
        responseHeaders: new yoga.fetchAPI.Headers(),
        jsonBody: c.body,
      });
      const answer = async (run: (r: Request, ctx: ServerContext) => Promise<Response>) => {
        const response = await requestScope.run({ requestId: 'req_same', log: running.log, operation: 'graphql' }, () => run(request(), context()));
        return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
      };
      const direct = await answer(handle);
      const viaAdapter = await answer(async (r, ctx) => yoga.handleRequest(r, ctx));
      expect(direct, c.name).toEqual(viaAdapter);
    }
  });

  it('serves /graphql over HTTP (the same read through the running app)', async () => {
    const customer = await app.customer();
    const res = await gql(app, '{ account { id } }', { key: customer.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { account: { id: customer.accountId } } });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('graphqlHandler with batching on', () => {
  it('answers a batch as yoga.handleRequest does', async () => {
    // The app's server has batching off; were it turned on, an array of operations must still get
    // yoga's answer. The body comes parsed, as the app hands it over (plugins/parsed-body.ts).
    const batching = createYoga({ schema: createSchema({ typeDefs: 'type Query { n: Int }', resolvers: { Query: { n: () => 1 } } }), batching: true, logging: false, plugins: [useParsedBody()] });
    const handle = graphqlHandler(batching as unknown as YogaServer);
    const request = () => new batching.fetchAPI.Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' } });
    const context = () => ({ jsonBody: [{ query: '{ n }' }, { query: '{ a: n }' }] }) as unknown as ServerContext;
    const answer = async (response: Response) => ({ status: response.status, body: await response.json() });
    const direct = await answer(await handle(request(), context()));
    expect(direct).toEqual({ status: 200, body: [{ data: { n: 1 } }, { data: { a: 1 } }] });
    expect(direct).toEqual(await answer(await batching.handleRequest(request(), context() as Parameters<typeof batching.handleRequest>[1])));
  });
});
