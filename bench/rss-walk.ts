// Child process of scenario 6: the app with many servers, walked page by page over HTTP;
// prints the peak resident set size as JSON.
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const count = Number(process.argv[2] ?? 10_000);
const app = await startBenchApp();
const c = await benchCustomer(app);
await loadServers(app, c.accountId, count);
let peak = process.memoryUsage().rss;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
let cursor: string | null = null;
let pages = 0;
let seen = 0;
do {
  const res = await fetch(`${app.url}/v1/servers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { Authorization: `Bearer ${c.key}` } });
  const page: any = await res.json();
  seen += page.data.length;
  cursor = page.nextCursor;
  pages++;
} while (cursor);
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
if (seen !== count) throw new Error(`walked ${seen} of ${count}`);
await app.stop();
console.log(JSON.stringify({ rss: peak, pages }));
process.exit(0);
