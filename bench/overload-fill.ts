// Child process of scenario 9: `overload-fill.ts <dir> <servers> <keys>` fills a data directory
// (or BENCH_DATABASE_URL) with an account of that many servers (with IPs, snapshots, add-ons)
// and that many full-scope keys, and prints the keys as JSON.
import { mintApiKey } from '../src/modules/auth/service.ts';
import { ALL_SCOPES } from '../src/scopes.ts';
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const [dataDir, servers, keys] = process.argv.slice(2);
const app = await startBenchApp({}, { dataDir });
const c = await benchCustomer(app);
await loadServers(app, c.accountId, Number(servers), { nested: true });
const minted = [c.key];
for (let i = 1; i < Number(keys); i++)
  minted.push((await mintApiKey(app.running.app.prisma, c.accountId, { name: `load ${i}`, scopes: ALL_SCOPES })).key);
await app.stop();
console.log(JSON.stringify({ keys: minted }));
process.exit(0);
