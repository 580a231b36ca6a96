import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALL_SCOPES } from '../../src/scopes.ts';
import { ADMIN_TOKEN, clientApp, freshDatabase, type ClientApp, type Json } from './app.ts';
import { ensureBuilt, PortTaken, spawnServer, waitReady } from './process.ts';

/** The built server run as `npm start` runs it, driven over HTTP only. */
export interface BuiltApp extends ClientApp {
  /** Runs the work that is due now (jobs, deliveries), as the background ticker would. */
  runDueWork(): Promise<void>;
  /** The simulated clock's time. */
  now(): Promise<Date>;
}

/**
 * Spawns the built server and waits until it is ready; again on another port when the one it was
 * given was taken meanwhile (many servers start at once in a full run). Its output is kept as
 * log lines, and it never outlives the test process.
 */
async function spawnReady(env: Record<string, string>, dataDir: string) {
  for (let attempt = 1; ; attempt++) {
    const proc = await spawnServer(env, dataDir, (port) => ({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }));
    const kill = () => proc.child.kill('SIGKILL');
    process.once('exit', kill);
    const logs: string[] = [];
    let partial = '';
    /** The child's output, split into its log lines as they come. */
    const onData = (d: Buffer) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop() ?? '';
      logs.push(...parts.filter(Boolean));
    };
    proc.child.stdout?.on('data', onData);
    proc.child.stderr?.on('data', onData);
    try {
      await waitReady(proc);
      return { proc, kill, logs };
    } catch (err) {
      kill();
      process.removeListener('exit', kill);
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}

/**
 * Starts `node bin/svc.js serve` (what `npm start` runs) from the build in dist/, in a child
 * process on an ephemeral port with its own DATA_DIR (or a fresh PostgreSQL database when
 * TEST_DATABASE_URL is set) and the test operator token. Background jobs are off: the tests move
 * the simulated clock through the operator API. A file the build leaves out fails here as it
 * would for a customer.
 */
export async function startBuiltApp(
  opts: { webhookAllowPrivate?: boolean; hostingAllowLocalGit?: boolean } = {},
): Promise<BuiltApp> {
  await ensureBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-built-'));
  const database = await freshDatabase();
  const env: Record<string, string> = {
    ADMIN_TOKEN,
    BACKGROUND_JOBS: '0',
    LOG_LEVEL: 'info',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    ...(opts.webhookAllowPrivate ? { WEBHOOK_ALLOW_PRIVATE: '1' } : {}),
    ...(opts.hostingAllowLocalGit ? { HOSTING_ALLOW_LOCAL_GIT: '1' } : {}),
  };
  const { proc, kill, logs } = await spawnReady(env, dataDir);
  const client = clientApp(proc.url, dataDir, logs, async () => {
    process.removeListener('exit', kill);
    if (proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const tick = async () => {
    // The smallest move the operator API takes: it runs what is due now.
    const r = await client.admin('POST', '/admin/clock/advance', { seconds: 0.001 });
    if (r.status !== 200) throw new Error(`clock: ${r.text}`);
    return new Date(r.body.now);
  };
  return Object.assign(client, {
    runDueWork: async () => void (await tick()),
    now: tick,
  });
}

const readKeys = new Map<string, Promise<string>>();

/**
 * GET through the public REST API (`/v1<path>`) with a read key of the account's own: what any
 * other client of the account sees. The key is minted once per app and account.
 */
export async function readAs<T = Json>(app: ClientApp, accountId: string, p: string): Promise<T> {
  const id = `${app.url} ${accountId}`;
  if (!readKeys.has(id))
    readKeys.set(
      id,
      app
        .admin('POST', `/admin/accounts/${accountId}/api-keys`, {
          scopes: ALL_SCOPES.filter((s) => s.endsWith(':read')),
        })
        .then((r) => r.body.key as string),
    );
  const r = await app.call<T>('GET', `/v1${p}`, { key: await readKeys.get(id) });
  if (r.status !== 200) throw new Error(`GET /v1${p} → ${r.status}: ${r.text}`);
  return r.body;
}

/** The account's wallet balance in cents, as GET /v1/billing/wallet says. */
export async function balance(app: ClientApp, c: { accountId: string }): Promise<number> {
  return (await readAs(app, c.accountId, '/billing/wallet')).balance_usd_cents;
}
