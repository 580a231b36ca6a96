// Child process of scenario 6: `rss-walk.ts <dir> <n>` fills a data directory (or
// BENCH_DATABASE_URL) with n servers and a customer, and prints the customer's key as JSON.
// The walk itself runs against `npm start` in its own process (bench/cold-start.ts).
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const [dataDir, count] = process.argv.slice(2);
const app = await startBenchApp({}, { dataDir });
const c = await benchCustomer(app);
await loadServers(app, c.accountId, Number(count));
await app.stop();
console.log(JSON.stringify({ key: c.key }));
process.exit(0);
