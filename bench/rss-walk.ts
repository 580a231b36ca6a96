// Child process of scenario 6, in two phases so the figure is a server's steady state, not the
// one-off cost of creating a database: `load <dir> <n>` fills a data directory with n servers;
// `walk <dir>` starts on it, walks every page over HTTP and prints the peak RSS as JSON.
import { benchCustomer, loadServers, startBenchApp } from './lib.ts';

const [phase, dataDir, count] = process.argv.slice(2);
if (phase === 'load') {
  const app = await startBenchApp({}, { dataDir });
  const c = await benchCustomer(app);
  await loadServers(app, c.accountId, Number(count));
  await app.stop();
  console.log(JSON.stringify({ key: c.key }));
} else {
  const key = process.argv[5];
  const app = await startBenchApp({}, { dataDir });
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  let cursor: string | null = null;
  let pages = 0;
  let seen = 0;
  do {
    const res = await fetch(`${app.url}/v1/servers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { Authorization: `Bearer ${key}` } });
    const page: any = await res.json();
    seen += page.data.length;
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  await app.stop();
  console.log(JSON.stringify({ rss: peak, pages, seen }));
}
process.exit(0);
