// `npm run cluster -- [instances]`: N instances of the API on consecutive ports after PORT,
// on the shared DATABASE_URL (and REDIS_URL), behind a round-robin balancer on PORT.
// For local trials of the production mode; see README "Production".
import { spawn, type ChildProcess } from 'node:child_process';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startBalancer } from '../src/cluster/balancer.ts';

const count = Number(process.argv[2] ?? process.env.INSTANCES ?? 3);
const basePort = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
if (!process.env.DATABASE_URL) {
  console.error(
    'cluster: DATABASE_URL must name a PostgreSQL database (instances cannot share the embedded one). REDIS_URL is recommended.',
  );
  process.exit(2);
}
if (!Number.isInteger(count) || count < 1 || count > 16) {
  console.error('cluster: the instance count must be 1 to 16');
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];
for (let i = 1; i <= count; i++) {
  const child = spawn(process.execPath, ['bin/svc.js', 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(basePort + i),
      HOST: host,
      PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://${host}:${basePort}`,
      // The balancer is their peer and appends the client to X-Forwarded-For: believe it there.
      TRUST_PROXY: [process.env.TRUST_PROXY, 'loopback', isIP(host) && !/^(0\.0\.0\.0|::)$/.test(host) ? host : '']
        .filter(Boolean)
        .join(','),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
}
await startBalancer({ port: basePort, host, targets: children.map((_, i) => ({ host, port: basePort + i + 1 })) });
console.error(
  `cluster: ${count} instances on ports ${basePort + 1}-${basePort + count}, balancer on http://${host}:${basePort}`,
);

const stop = () => {
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(0), 12_000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.on('exit', r))))).then(() =>
    process.exit(0),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
