import http from 'node:http';
import net from 'node:net';

/**
 * A small round-robin load balancer for local trials of several instances (`npm run
 * cluster`): HTTP requests and WebSocket upgrades (graphql-ws) go to the next target in
 * turn; a target that refuses the connection is skipped for that request. Both append the
 * client's address to X-Forwarded-For (the instances trust it with TRUST_PROXY=loopback).
 */
export function startBalancer(opts: {
  port: number;
  host?: string;
  targets: { host: string; port: number }[];
}): Promise<http.Server> {
  let next = 0;
  const pick = () => opts.targets[next++ % opts.targets.length];

  const server = http.createServer((req, res) => {
    const forward = (attempt: number) => {
      const target = pick();
      const upstream = http.request(
        {
          host: target.host,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, 'x-forwarded-for': forwardedFor(req) },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED' && attempt < opts.targets.length && !res.headersSent)
          return forward(attempt + 1);
        if (!res.headersSent)
          res
            .writeHead(502, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ statusCode: 502, message: 'No instance answered.', error: 'Bad Gateway' }));
        else res.destroy();
      });
      req.pipe(upstream);
    };
    forward(1);
  });

  server.on('upgrade', (req, socket, head) => {
    const target = pick();
    const upstream = net.connect(target.port, target.host, () => {
      const headers = Object.entries({ ...req.headers, 'x-forwarded-for': forwardedFor(req) }).flatMap(([k, v]) =>
        Array.isArray(v) ? v.map((x) => `${k}: ${x}`) : [`${k}: ${v}`],
      );
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve(server));
  });
}

/** X-Forwarded-For with the client's address appended: what the client sent stays to its left. */
function forwardedFor(req: http.IncomingMessage): string {
  const sent = req.headers['x-forwarded-for'];
  const peer = req.socket.remoteAddress ?? 'unknown';
  return sent ? `${sent}, ${peer}` : peer;
}
