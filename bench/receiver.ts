// The webhook receiver of scenario 4, in its own process so it does not take CPU from the
// server being measured. Answers 200 to every POST and keeps, per delivery, the time from the
// event's `created` to receipt. GET /stats returns them; POST /reset clears them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
let latencies: number[] = [];
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received, latencies }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    received = 0;
    latencies = [];
    res.writeHead(204).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    received++;
    try {
      latencies.push(now - Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).created));
    } catch {
      /* not an envelope */
    }
    res.writeHead(200).end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
