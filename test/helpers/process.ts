import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Runs `node bin/svc.js serve` (what `npm start` runs) as a separate process, as a user would;
 * `envForPort` adds what depends on the port it listens on.
 */
export async function spawnServer(
  env: Record<string, string> = {},
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proc-')),
  envForPort: (port: number) => Record<string, string> = () => ({}),
): Promise<ServerProcess> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['bin/svc.js', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...env,
      ...envForPort(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${port}`, port, dataDir, output: () => out, exited };
}

/** The port freePort found was taken by another process before the child could listen on it. */
export class PortTaken extends Error {
  constructor(url: string) {
    super(`${url}: the port was taken before the server could listen on it`);
  }
}

/**
 * Polls the process's /readyz every `pollMs` until it answers 200; returns the milliseconds it
 * took. It fails at once if the process exits, and a failure carries the process's output, so a
 * start that hangs or crashes under a loaded CI machine says why.
 */
export async function waitReady(proc: ServerProcess, timeoutMs = 60_000, pollMs = 50): Promise<number> {
  const url = proc.url;
  let exitCode: number | null | undefined;
  void proc.exited.then((code) => (exitCode = code));
  const failure = (why: string) => new Error(`${why}; its output:\n${proc.output().slice(-8000)}`);
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (exitCode !== undefined) {
      if (proc.output().includes('EADDRINUSE')) throw new PortTaken(url);
      throw failure(`${url} exited with code ${exitCode} before it was ready`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      // Ours, not whatever else took the port between freePort and the child's listen (a test's
      // receiver answers 200 to anything): its readiness names its checks.
      const body = res.status === 200 ? await res.json().catch(() => undefined) : undefined;
      if (body?.checks?.migrations === 'ok') return performance.now() - started;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw failure(`${url} not ready after ${timeoutMs} ms`);
}

const BUNDLE = path.join(ROOT, 'dist/server/cli.mjs');
const BUILD_LOCK = path.join(ROOT, 'dist/.server-build-lock');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const bundleIsFresh = () =>
  fs.existsSync(BUNDLE) &&
  fs.statSync(BUNDLE).mtimeMs > Math.max(newestSource(path.join(ROOT, 'src')), newestSource(path.join(ROOT, 'bin')));

/**
 * Rebuilds the server bundle and the dashboard when a source is newer than the bundle: bin/svc.js
 * would otherwise run the sources through tsx, and the test would not drive what `npm start`
 * serves (the benchmarks build through here too). Two test files may get here at once: one
 * builds (a lock directory), the other waits.
 */
export async function ensureBuilt(): Promise<void> {
  const built = () => bundleIsFresh() && fs.existsSync(path.join(ROOT, 'dist/dashboard/index.html'));
  if (built()) return;
  for (;;) {
    try {
      fs.mkdirSync(BUILD_LOCK);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (built()) return; // built by the one that held the lock
    if (!bundleIsFresh()) execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
    execFileSync(process.execPath, ['scripts/build-dashboard.mjs'], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    fs.rmdirSync(BUILD_LOCK);
  }
}
