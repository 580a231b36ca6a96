// `node --cpu-prof --import tsx bench/profile-read.ts [rest-path]`: the app with the read-path
// scenario's account, driven by autocannon in another process for a few seconds, so a CPU
// profile of this process holds the server's work only.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const app = await startBenchApp();
const c = await benchCustomer(app);
await loadServers(app, c.accountId, 50, { nested: true, snapshots: 2 });
const first = (await (await fetch(`${app.url}/v1/servers?limit=1`, { headers: { Authorization: `Bearer ${c.key}` } })).json()) as { data: { id: string }[] };
const path = (process.argv[2] ?? '/v1/servers?limit=50').replace(':id', first.data[0].id);
const seconds = process.env.PROFILE_SECONDS ?? '8';
const { stdout } = await promisify(execFile)(process.execPath, ['node_modules/autocannon/autocannon.js', '-j', '-c', '10', '-d', seconds, '-H', `Authorization=Bearer ${c.key}`, app.url + path], { encoding: 'utf8' });
const r = JSON.parse(stdout);
console.error(`${path}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, non-2xx ${r.non2xx}`);
await app.stop();
process.exit(0);
