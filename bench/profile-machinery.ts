// `node --cpu-prof --import tsx bench/profile-machinery.ts [rounds]`: the GraphQL machinery of
// GET /v1/servers/:id with no HTTP around it, taken apart layer by layer. The app with scenario
// 8's first account; then, in rounds, each way below called in a loop, each a layer less than
// the one before: the executor as the execute stage runs a /v1 operation (its operation stages
// over the compiled REST projection, the answer serialised), the compiled projection alone
// (context, graphql-jit, Pothos's resolvers), and the server read through the data layer alone
// (the statement, its rows, JSON). Prints µs per call of each: the differences are what each
// layer costs. A CPU profile taken with PROFILE_ONLY=<way> holds that way's work only.
// BENCH_DATABASE_URL runs it on PostgreSQL.
import { tenantClient } from '../src/db/tenant.ts';
import { print } from 'graphql';
import { compiled } from '../src/http/executor/compile.ts';
import { createGraphQLServer } from '../src/http/graphql/graphql.ts';
import { requestContext } from '../src/schema/context.ts';
import { createExecutor } from '../src/http/executor/index.ts';
import { authenticate } from '../src/modules/auth/service.ts';
import { resourceUrl } from '../src/modules/oauth/resources.ts';
import { listOperations } from '../src/schema/operation.ts';
import { restProjection, restProjections, restResult } from '../src/schema/rest-projection.ts';
import { restView } from '../src/schema/rest-view.ts';
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';
import { serverJson } from './data-layer.ts';

const bench = await startBenchApp();
const app = bench.running.app;
const c = await benchCustomer(bench);
await loadServers(bench, c.accountId, 50, { nested: true, snapshots: 2 });
const first = (await (
  await fetch(`${bench.url}/v1/servers?limit=1`, { headers: { Authorization: `Bearer ${c.key}` } })
).json()) as { data: { id: string }[] };
const id = first.data[0].id;
// The executor the app built (src/http/executor), made again here to be called without HTTP.
const executor = await createExecutor(app.schema);
const principal = (await authenticate(
  app.prisma,
  `Bearer ${c.key}`,
  app.clock.now(),
  resourceUrl(app.config.publicBaseUrl, 'rest'),
  app.principals,
))!;
const operation = listOperations(restView(app.schema)).find((op) => op.name === 'server')!;
const projection = restProjection(await restProjections(app.schema), operation);
const document = compiled(app.schema, projection.document, undefined, projection);
const caller = () => ({
  app,
  principal,
  requestId: 'profile',
  log: app.log,
  responseHeaders: new Headers(),
  idempotencyKey: null,
});

const yoga = createGraphQLServer(app.schema, executor);
const { Request: YogaRequest } = yoga.fetchAPI;
const graphqlBody = { query: print(projection.document), variables: { id } };
const graphqlHeaders = { 'content-type': 'application/json', accept: 'application/json' };

const ways: Record<string, () => Promise<unknown>> = {
  // As the execute stage runs /graphql: yoga over the parsed body, its answer read as text.
  async yoga() {
    const request = new YogaRequest(`${bench.url}/graphql`, { method: 'POST', headers: graphqlHeaders });
    const response = await yoga.handleRequest(request, { ...caller(), jsonBody: graphqlBody });
    return response.text();
  },
  async executor() {
    const result = await executor.operation(operation, { id }, caller());
    return JSON.stringify(result.data?.server);
  },
  async compiled() {
    const result = await document.run(undefined, requestContext(caller()), { id });
    return JSON.stringify(restResult(projection, result));
  },
  async 'data layer'() {
    return serverJson(tenantClient(app.prisma, principal.accountId), id);
  },
};
const only = process.env.PROFILE_ONLY;
const calls = 2000;
for (let round = 0; round < Number(process.argv[2] ?? 5); round++) {
  const line: string[] = [];
  for (const [name, call] of Object.entries(ways)) {
    if (only && name !== only) continue;
    const started = performance.now();
    for (let i = 0; i < calls; i++) await call();
    line.push(`${name} ${(((performance.now() - started) * 1000) / calls).toFixed(0)} µs`);
  }
  console.log(line.join(', '));
}
await bench.stop();
process.exit(0);
