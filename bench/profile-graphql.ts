// `node --cpu-prof --import tsx bench/profile-graphql.ts [field]`: as profile-read.ts, for the
// GraphQL document REST runs for a root field (`server` by default, the first server's id).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, print } from 'graphql';
import { restView } from '../src/schema/rest-view.ts';
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const app = await startBenchApp();
const c = await benchCustomer(app);
await loadServers(app, c.accountId, 50, { nested: true, snapshots: 2 });
const first = (await (await fetch(`${app.url}/v1/servers?limit=1`, { headers: { Authorization: `Bearer ${c.key}` } })).json()) as { data: { id: string }[] };
const field = process.argv[2] ?? 'server';
const variables = field === 'server' ? { id: first.data[0].id } : { limit: 50 };
const node = buildOperationNodeForField({ schema: restView(app.running.app.schema), kind: OperationTypeNode.QUERY, field, models: [], ignore: [], circularReferenceDepth: 2 });
const body = JSON.stringify({ query: print({ kind: Kind.DOCUMENT, definitions: [node] }), variables });
const seconds = process.env.PROFILE_SECONDS ?? '8';
const { stdout } = await promisify(execFile)(process.execPath, ['node_modules/autocannon/autocannon.js', '-j', '-c', '10', '-d', seconds, '-m', 'POST', '-H', `Authorization=Bearer ${c.key}`, '-H', 'Content-Type=application/json', '-b', body, `${app.url}/graphql`], { encoding: 'utf8', maxBuffer: 1 << 24 });
const r = JSON.parse(stdout);
console.error(`graphql ${field}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, non-2xx ${r.non2xx}`);
await app.stop();
process.exit(0);
