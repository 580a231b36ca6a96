// Child process of scenario 9: `overload-load.ts <json>` drives one URL with autocannon (closed
// loop, `connections` at once, the credentials taken in turn) and prints what a client saw as
// JSON: answers by status, the accepted answers' latencies, refusals without Retry-After,
// timeouts and socket errors. In its own process, so the client's work is not the server's.
import autocannon from 'autocannon';
import { percentile } from './lib.ts';

const opts = JSON.parse(process.argv[2]) as {
  url: string;
  path: string;
  keys: string[];
  connections: number;
  seconds: number;
  timeoutSeconds: number;
};
const statuses: Record<string, number> = {};
const accepted: number[] = [];
let refusalsWithoutRetryAfter = 0;
let turn = 0;
const instance = autocannon({
  url: opts.url + opts.path,
  connections: opts.connections,
  duration: opts.seconds,
  timeout: opts.timeoutSeconds,
  method: 'GET',
  // Every request the next credential, across all connections, so that no per-credential limit applies.
  setupClient(client: {
    on(event: string, listener: (...args: never[]) => void): void;
    setHeaders(headers: Record<string, string>): void;
  }) {
    const next = () => client.setHeaders({ Authorization: `Bearer ${opts.keys[turn++ % opts.keys.length]}` });
    next();
    client.on('response', next);
    client.on('headers', ({ statusCode, headers }: { statusCode: number; headers: string[] }) => {
      if (statusCode < 400) return;
      const named = headers.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase());
      if (!named.includes('retry-after')) refusalsWithoutRetryAfter++;
    });
  },
});
instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  if (statusCode === 200) accepted.push(ms);
});
const result = await instance;
console.log(
  JSON.stringify({
    statuses,
    acceptedPerSecond: accepted.length / opts.seconds,
    acceptedP99: percentile(accepted, 99),
    refusalsWithoutRetryAfter,
    timeouts: result.timeouts,
    errors: result.errors,
  }),
);
process.exit(0);
