import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt, spawnServer, waitReady } from '../test/helpers/process.ts';
import type { Figure, Sizes } from './scenarios.ts';

// Scenario 6: cold start of `npm start` and the peak memory of a server process.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `npm start` as a child process (on the server bundle, which scenario 6 rebuilds first). */
async function startServerProcess(env: Record<string, string>, dataDir: string) {
  const server = await spawnServer({ LOG_LEVEL: 'warn', ...env }, dataDir);
  return {
    url: server.url,
    /** Spawn to the first 200 from /readyz (polled every 25 ms); an early exit fails with the output. */
    ready: (): Promise<number> => waitReady(server, 120_000, 25),
    /** Peak resident set of the server process so far (Linux: VmHWM). */
    peakRss(): number {
      const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    async stop() {
      server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

/**
 * Scenario 6: cold start of `npm start` on a fresh data directory, and the peak RSS of that
 * server process while it holds many servers and serves a paginated walk over all of them.
 */
export async function coldStartAndMemory(sizes: Sizes): Promise<Figure[]> {
  // What `npm ci` leaves: the server bundle, current with src/ (rebuilt only when a source is newer).
  await ensureBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cold-'));
  const cold = await startServerProcess({}, dataDir);
  const coldMs = await cold.ready();
  await cold.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });

  // Fill a data directory (or BENCH_DATABASE_URL) in another process, so the figure is the
  // serving process's steady state, not the one-off cost of the load.
  const walkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rss-'));
  const { key } = await new Promise<{ key: string }>((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'bench/rss-walk.ts', walkDir, String(sizes.rssServers)], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`rss-walk exited ${code}`)),
    );
  });
  const server = await startServerProcess(
    process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {},
    walkDir,
  );
  let pages = 0;
  let seen = 0;
  let rss = 0;
  try {
    await server.ready();
    let cursor: string | null = null;
    do {
      const res = await fetch(`${server.url}/v1/servers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      const page = (await res.json()) as { data: unknown[]; nextCursor: string | null };
      seen += page.data.length;
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
  } finally {
    rss = server.peakRss();
    await server.stop();
    fs.rmSync(walkDir, { recursive: true, force: true });
  }
  if (seen !== sizes.rssServers) throw new Error(`walked ${seen} of ${sizes.rssServers} servers`);
  return [
    {
      scenario: '6 start and memory',
      metric: 'cold start to /readyz (fresh data directory)',
      value: coldMs,
      unit: 'ms',
      budget: '≤ 3,000',
      pass: coldMs <= 3000,
    },
    {
      scenario: '6 start and memory',
      metric: `peak RSS of the server, ${sizes.rssServers} servers walked in ${pages} pages`,
      value: rss / 1024 / 1024,
      unit: 'MB',
      budget: '≤ 300',
      pass: rss / 1024 / 1024 <= 300,
    },
  ];
}
