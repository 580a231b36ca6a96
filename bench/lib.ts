import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startApp, type RunningApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { ID_PREFIX, newId } from '../src/db/ids.ts';
import { mintApiKey } from '../src/modules/auth/service.ts';
import { ALL_SCOPES } from '../src/scopes.ts';
import { createAccount } from '../src/modules/account/service.ts';
import { requestScope } from '../src/http/request/request-scope.ts';

const requestScopeId = () => requestScope.getStore()?.requestId ?? '-';

export interface BenchApp {
  running: RunningApp;
  url: string;
  /** From now on, counts the SQL statements the request with this X-Request-Id sends. */
  countSql(requestId: string): void;
  /** SQL statements sent by the request with this X-Request-Id, counted since `countSql` (background work is not counted). */
  sqlFor(requestId: string): number;
  stop(): Promise<void>;
}

/** The app in this process on an ephemeral port, on PGlite in a temp dir or on BENCH_DATABASE_URL. */
export async function startBenchApp(
  overrides: Partial<Config> = {},
  opts: { dataDir?: string } = {},
): Promise<BenchApp> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  // Only the requests asked for are counted: counting every statement of a timed run would be
  // work the app is charged with and the anchor is not.
  const statements = new Map<string, number>();
  const logSql = Boolean(process.env.BENCH_SQL_LOG);
  const config = loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
      adminToken: 'bench-admin',
      seedDemo: false,
      // Errors only: the 1,000 req/s run overloads the server on purpose, and each request that
      // waits longer than the pool's 3 s answers 503 with a warning.
      logLevel: 'error',
      webhookAllowPrivate: true,
      // The spec's 120 per minute would refuse almost every benchmark request.
      requestsPerMinute: 1e9,
      ...overrides,
    },
  );
  const running = await startApp(config, {
    onQuery: (q) => {
      if (statements.size === 0 && !logSql) return;
      const id = requestScopeId();
      const count = statements.get(id);
      if (count !== undefined) statements.set(id, count + 1);
      if (logSql) console.error(`[sql ${id}] ${q.slice(0, 160)}`);
    },
  });
  return {
    running,
    url: running.url,
    countSql: (requestId) => void statements.set(requestId, 0),
    sqlFor: (requestId) => statements.get(requestId) ?? 0,
    async stop() {
      await running.stop();
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh account with a full-scope key. */
export async function benchCustomer(app: BenchApp) {
  const prisma = app.running.app.prisma;
  const account = await createAccount(
    prisma,
    { email: `bench-${newId('x')}@example.com`, name: 'Bench', country: 'DE', walletBalanceUsdCents: 1_000_000 },
    new Date(),
  );
  const key = await mintApiKey(prisma, account.id, { name: 'bench', scopes: ALL_SCOPES });
  return { accountId: account.id, key: key.key };
}

// A random start, so processes loading into one shared database do not collide.
let addressCounter = randomInt(1 << 21);
/** Addresses from 100.64.0.0/10 (carrier-grade NAT space): never the simulated provider's. */
function nextAddress(): string {
  const n = addressCounter++;
  return `100.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
}

/** Loads `count` running servers with 2 IPs, and when `nested` `snapshots` snapshots (1 unless told) and 1 add-on each, straight into the database. */
export async function loadServers(
  app: BenchApp,
  accountId: string,
  count: number,
  opts: { nested?: boolean; snapshots?: number } = {},
): Promise<void> {
  const prisma = app.running.app.prisma;
  const now = Date.now();
  for (let start = 0; start < count; start += 1000) {
    const n = Math.min(1000, count - start);
    const servers = Array.from({ length: n }, (_, i) => ({
      id: newId(ID_PREFIX.server, now - (start + i)),
      accountId,
      label: `bench-${start + i}`,
      status: 'running',
      productId: 'std-1c-2g-50',
      vcpu: 1,
      ramMb: 2048,
      diskGb: 50,
      os: 'linux',
      osTemplate: 'debian-12',
      provisionedAt: new Date(now),
      paidUntil: new Date(now + 30 * 86400_000),
    }));
    await prisma.server.createMany({ data: servers });
    await prisma.serverIp.createMany({
      data: servers.flatMap((s) =>
        [0, 1].map((k) => ({
          id: newId(ID_PREFIX.serverIp),
          accountId,
          serverId: s.id,
          address: nextAddress(),
          zoneHosted: true,
          isPrimary: k === 0,
        })),
      ),
    });
    if (opts.nested) {
      const snapshots = Array.from({ length: opts.snapshots ?? 1 }, (_, k) => k);
      await prisma.snapshot.createMany({
        data: servers.flatMap((s) =>
          snapshots.map((k) => ({
            id: newId(ID_PREFIX.snapshot),
            accountId,
            serverId: s.id,
            name: k ? `weekly-${k}` : 'nightly',
            status: 'available',
            sizeGb: 10,
          })),
        ),
      });
      await prisma.serverAddon.createMany({
        data: servers.map((s) => ({
          id: newId('sad'),
          accountId,
          serverId: s.id,
          productId: 'addon-ipv4-1',
          type: 'extra_ip',
          activeType: 'extra_ip',
          monthlyUsdCents: 300,
          chargedUsdCents: 300,
        })),
      });
    }
  }
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** Drives a URL with autocannon: closed loop (`connections`) or open loop at `rate` requests/s. */
export async function load(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  seconds: number;
  connections?: number;
  rate?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    duration: opts.seconds,
    connections: opts.connections ?? 10,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * Serves `listener` for paths under `prefix` on the app's own HTTP server, in front of the app:
 * both sides then share one server, its sockets and settings, and one load run can alternate
 * between them (`slicedLoad`). Returns the function that takes it away again.
 */
export function mountBeside(server: http.Server, prefix: string, listener: http.RequestListener): () => void {
  const app = server.listeners('request') as http.RequestListener[];
  const door: http.RequestListener = (req, res) => {
    if (req.url?.startsWith(prefix)) listener(req, res);
    else for (const l of app) l(req, res);
  };
  server.removeAllListeners('request');
  server.on('request', door);
  return () => {
    server.off('request', door);
    for (const l of app) server.on('request', l);
  };
}

export interface SlicedRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Throughput of several states measured in one run: closed-loop load (`connections` requests
 * in flight) that moves to another state every `sliceMs` (each round of states in a random
 * order). A state is the client's (`request` says what to send in it) or the server's
 * (`enter` flips a switch). At
 * each switch the run waits until the last request of the old state has been answered, and a
 * slice lasts from its first request to its last answer, so no request is counted in another
 * state's time. Drift on a shared machine (a neighbour's load, CPU frequency) so falls on
 * every state alike, where runs seconds apart moved ratios by ±20 %. The first round of
 * slices is not counted (warm-up). Any answer other than 2xx fails the run.
 */
export async function slicedLoad<S extends string>(opts: {
  url: string;
  states: readonly S[];
  seconds: number;
  sliceMs: number;
  connections?: number;
  enter?: (state: S) => void;
  request: (state: S) => SlicedRequest;
}): Promise<Record<S, number>> {
  const connections = opts.connections ?? 10;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(opts.url);
  const send = (r: SlicedRequest) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: base.hostname, port: base.port, path: r.path, method: r.method ?? 'GET', headers: r.headers, agent },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode! >= 200 && res.statusCode! < 300
              ? resolve()
              : reject(new Error(`${r.method ?? 'GET'} ${r.path}: HTTP ${res.statusCode}`)),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(r.body);
    });
  const answered = Object.fromEntries(opts.states.map((s) => [s, { requests: 0, ms: 0 }])) as Record<
    S,
    { requests: number; ms: number }
  >;
  // At least eight counted slices per state, so one the timer served late does not decide it.
  const rounds = Math.max(Math.ceil((opts.seconds * 1000) / opts.sliceMs / opts.states.length), 9);
  // Each round in a random order and each slice ±25 % long: with a fixed rhythm, periodic work
  // in the process (the 1-s background ticker, the relay's poll) fell in the same state's
  // slices run after run (scenario 7 measured −7 %: the middleware "saving" time).
  const order = () => {
    const states = [...opts.states];
    for (let i = states.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [states[i], states[j]] = [states[j], states[i]];
    }
    return states;
  };
  const slices = Array.from({ length: rounds }, order).flat();
  try {
    for (let i = 0; i < slices.length; i++) {
      const state = slices[i];
      const request = opts.request(state);
      opts.enter?.(state);
      let requests = 0;
      const started = performance.now();
      const until = started + opts.sliceMs * (0.75 + Math.random() / 2);
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            await send(request);
            requests++;
          }
        }),
      );
      if (i < opts.states.length) continue;
      answered[state].requests += requests;
      answered[state].ms += performance.now() - started;
    }
  } finally {
    agent.destroy();
  }
  return Object.fromEntries(opts.states.map((s) => [s, answered[s].requests / (answered[s].ms / 1000)])) as Record<
    S,
    number
  >;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
