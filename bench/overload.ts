import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt, spawnServer, waitReady } from '../test/helpers/process.ts';
import { sleep } from './lib.ts';
import type { Figure, Sizes } from './scenarios.ts';

// Scenario 9: overload. `npm start` in its own process, driven by autocannon in another, the way
// issue "Overload" measured it: GET /v1/servers (50 servers) with the credentials taken in turn,
// so no per-credential limit applies, a 10 s client timeout.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PATH = '/v1/servers?limit=50';

interface Seen {
  statuses: Record<string, number>;
  acceptedPerSecond: number;
  acceptedP99: number;
  refusalsWithoutRetryAfter: number;
  timeouts: number;
  errors: number;
}

function child<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${script} exited ${code}`)),
    );
  });
}

export async function overload(sizes: Sizes): Promise<Figure[]> {
  // The server bundle, current with src/: built only when a source is newer, under the lock the
  // tests take, so a suite's servers never start from a bundle being rewritten.
  await ensureBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-overload-'));
  const { keys } = await child<{ keys: string[] }>('bench/overload-fill.ts', [
    dataDir,
    '50',
    String(sizes.overloadKeys),
  ]);
  const database = process.env.BENCH_DATABASE_URL;
  const server = await spawnServer(
    {
      LOG_LEVEL: 'warn',
      ACCOUNT_REQUESTS_PER_MINUTE: '0',
      ...(database ? { DATABASE_URL: database } : {}),
      // OVERLOAD_* of the bench's own environment, to try other limits.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OVERLOAD_'))),
    } as Record<string, string>,
    dataDir,
  );
  try {
    await waitReady(server, 120_000);
    const drive = (connections: number, seconds: number) =>
      child<Seen>('bench/overload-load.ts', [
        JSON.stringify({ url: server.url, path: PATH, keys, connections, seconds, timeoutSeconds: 10 }),
      ]);
    // A warm-up, not counted: a cold instance (code not yet optimized, caches empty, each key's
    // first use written) served its first 10-connection run about a tenth slower than its second.
    await drive(10, sizes.overloadSeconds);
    // The 10-connection figures before and after the flood (their mean), the flood between.
    const before = await drive(10, sizes.overloadSeconds);
    const health: number[] = [];
    let flooding = true;
    const probe = (async () => {
      while (flooding) {
        const started = performance.now();
        await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
        health.push(performance.now() - started);
        await sleep(50);
      }
    })();
    const flood = await drive(sizes.overloadConnections, sizes.overloadSeconds);
    flooding = false;
    await probe;
    const after = await drive(10, sizes.overloadSeconds);
    const baseP99 = (before.acceptedP99 + after.acceptedP99) / 2;
    const baseRate = (before.acceptedPerSecond + after.acceptedPerSecond) / 2;
    const refused = Object.entries(flood.statuses).filter(([s]) => s !== '200');
    const strayStatuses = refused.filter(([s]) => s !== '503' && s !== '429').map(([s, n]) => `${n}×${s}`);
    const p99Budget = Math.max(1000, 3 * baseP99);
    const healthMax = Math.max(...health);
    const s = `9 overload, ${sizes.overloadConnections} connections`;
    if (process.env.BENCH_VERBOSE) console.error(JSON.stringify({ before, flood, after, health: health.length }));
    // A refusal in a 10-connection run (a key past its rate limit) would make the baseline a
    // count of refusals: the comparison holds only when those runs were answered in full.
    const baseRefused = [before, after].flatMap((run) => Object.entries(run.statuses).filter(([st]) => st !== '200'));
    return [
      {
        scenario: s,
        metric: `10-connection runs' refusals${baseRefused.length ? ` (${baseRefused.map(([st, n]) => `${n}×${st}`).join(', ')})` : ''}`,
        value: baseRefused.reduce((sum, [, n]) => sum + n, 0),
        unit: '',
        budget: '0',
        pass: baseRefused.length === 0,
      },
      {
        scenario: s,
        metric: `client timeouts (${flood.timeouts}) and socket errors (${flood.errors}); ${refused.map(([st, n]) => `${n}×${st}`).join(', ') || 'no refusals'}`,
        value: flood.timeouts + flood.errors,
        unit: '',
        budget: '0',
        pass: flood.timeouts + flood.errors === 0,
      },
      {
        scenario: s,
        metric: `refusals not 503/429 with Retry-After${strayStatuses.length ? ` (${strayStatuses.join(', ')})` : ''}`,
        value: flood.refusalsWithoutRetryAfter + strayStatuses.length,
        unit: '',
        budget: '0',
        pass: flood.refusalsWithoutRetryAfter === 0 && strayStatuses.length === 0,
      },
      {
        scenario: s,
        metric: `accepted answers' p99 (10 connections: ${baseP99.toFixed(0)} ms)`,
        value: flood.acceptedP99,
        unit: 'ms',
        budget: `≤ ${p99Budget.toFixed(0)}`,
        pass: flood.acceptedP99 <= p99Budget,
      },
      {
        scenario: s,
        metric: `/healthz, slowest of ${health.length} probes during the flood`,
        value: healthMax,
        unit: 'ms',
        budget: '≤ 250',
        pass: healthMax <= 250,
      },
      {
        scenario: s,
        metric: `accepted answers per second / 10 connections' (${flood.acceptedPerSecond.toFixed(0)} / ${baseRate.toFixed(0)})`,
        value: flood.acceptedPerSecond / baseRate,
        unit: '×',
        budget: '≥ 1',
        pass: flood.acceptedPerSecond >= baseRate,
      },
    ];
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
