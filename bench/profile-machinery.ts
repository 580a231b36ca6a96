// `node --cpu-prof --import tsx bench/profile-machinery.ts [rounds]`: the GraphQL machinery of
// GET /v1/servers/:id with no HTTP around it, taken apart layer by layer. The app with scenario
// 8's first account; then, in rounds, each way below called in a loop, each a layer less than
// the one before: the execute stage as stages/execute.ts runs it (a Fetch request, sofa's router,
// the answer read), envelop's execute of the operation's REST projection as sofa's execute hook
// runs it (context, plugins, graphql-jit, Pothos's resolvers), and the server read through the
// data layer alone (the statement, its rows, JSON). Prints µs per call of each: the differences
// are what each layer costs. A CPU profile taken with PROFILE_ONLY=<way> holds that way's work
// only. BENCH_DATABASE_URL runs it on PostgreSQL.
import type { ExecutionResult } from 'graphql';
import { tenantClient } from '../src/db/tenant.ts';
import { createGraphQLServer } from '../src/http/graphql.ts';
import { readAnswer } from '../src/http/respond.ts';
import { sofaHandler, sofaUrl } from '../src/http/sofa-handlers.ts';
import { authenticate } from '../src/modules/auth/service.ts';
import { resourceUrl } from '../src/modules/oauth/resources.ts';
import { listOperations } from '../src/schema/operation.ts';
import { restProjection, restResult } from '../src/schema/rest-projection.ts';
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
// The same pipeline the app built (graphql.ts, sofa-handlers.ts), made again here to be called without HTTP.
const yoga = createGraphQLServer(app.schema, () => app.limits);
const handler = sofaHandler(app.schema, yoga);
const principal = (await authenticate(
  app.prisma,
  `Bearer ${c.key}`,
  app.clock.now(),
  resourceUrl(app.config.publicBaseUrl, 'rest'),
  app.principals,
))!;
const { Request: FetchRequest, Headers: FetchHeaders } = yoga.fetchAPI;
const operation = listOperations(app.schema).find((op) => op.name === 'server')!;
const projection = restProjection(app.schema, operation);
const serverContext = () => ({
  app,
  principal,
  requestId: 'profile',
  log: app.log,
  responseHeaders: new FetchHeaders(),
  restVariables: { id },
});

const ways: Record<string, () => Promise<unknown>> = {
  async 'execute stage'() {
    const request = new FetchRequest(sofaUrl('http://localhost', operation), {
      headers: new FetchHeaders({ authorization: `Bearer ${c.key}` }),
    });
    return readAnswer(await handler(request, serverContext()));
  },
  async envelop() {
    const request = new FetchRequest('http://localhost/v1/servers/x');
    const context = { ...serverContext(), request };
    const envelope = yoga.getEnveloped(context);
    const contextValue = await envelope.contextFactory(context);
    const result = await envelope.execute({
      schema: envelope.schema,
      document: projection.document,
      variableValues: { id },
      contextValue,
    });
    return JSON.stringify(restResult(projection, result as ExecutionResult));
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
