// `node --cpu-prof --import tsx bench/profile-read.ts [rest-path | graphql:<field> | mcp:<field>]`: the app
// with the read-path scenario's account, driven by autocannon in another process for a few
// seconds, so a CPU profile of this process holds the server's work only. A REST path (`:id`
// is the first server's id; the 50-server page by default), or `graphql:<field>`: the document
// REST runs for that root field, POSTed to /graphql (`server` gets the first server's id, any
// other field `limit: 50`), or `mcp:<field>`: that field's tool in one stateless tools/call.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { print } from 'graphql';
import { listOperations } from '../src/schema/operation.ts';
import { restProjection, restProjections } from '../src/schema/rest-projection.ts';
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const app = await startBenchApp();
const projections = await restProjections(app.running.app.schema);
const c = await benchCustomer(app);
await loadServers(app, c.accountId, 50, { nested: true, snapshots: 2 });
const first = (await (
  await fetch(`${app.url}/v1/servers?limit=1`, { headers: { Authorization: `Bearer ${c.key}` } })
).json()) as { data: { id: string }[] };
const target = process.argv[2] ?? '/v1/servers?limit=50';
const [surface, field] = target.includes(':') && !target.startsWith('/') ? target.split(':') : ['rest', undefined];
const request = field
  ? surface === 'mcp'
    ? mcpRequest(field)
    : graphqlRequest(field)
  : ['-H', `Authorization=Bearer ${c.key}`, app.url + target.replace(':id', first.data[0].id)];
const seconds = process.env.PROFILE_SECONDS ?? '8';
const { stdout } = await promisify(execFile)(
  process.execPath,
  ['node_modules/autocannon/autocannon.js', '-j', '-c', '10', '-d', seconds, ...request],
  { encoding: 'utf8', maxBuffer: 1 << 24 },
);
const r = JSON.parse(stdout);
console.error(`${target}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, non-2xx ${r.non2xx}`);
await app.stop();
process.exit(0);

function variablesOf(rootField: string) {
  return rootField === 'server' ? { id: first.data[0].id } : { limit: 50 };
}

/** autocannon's arguments for the GraphQL document REST runs for `rootField`. */
function graphqlRequest(rootField: string): string[] {
  const { document } = restProjection(projections, { kind: 'query', name: rootField });
  const body = JSON.stringify({ query: print(document), variables: variablesOf(rootField) });
  return post('/graphql', body);
}

/** autocannon's arguments for the MCP tools/call of `rootField`'s tool. */
function mcpRequest(rootField: string): string[] {
  const schema = app.running.app.schema;
  const tool = listOperations(schema).find((op) => op.kind === 'query' && op.name === rootField)?.meta.tool;
  const params = { name: tool, arguments: variablesOf(rootField) };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
  return ['-H', 'Accept=application/json, text/event-stream', ...post('/mcp', body)];
}

function post(path: string, body: string): string[] {
  return [
    '-m',
    'POST',
    '-H',
    `Authorization=Bearer ${c.key}`,
    '-H',
    'Content-Type=application/json',
    '-b',
    body,
    `${app.url}${path}`,
  ];
}
