import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startApp, type RunningApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { ALL_SCOPES } from '../../src/scopes.ts';

const ALL: string[] = [...ALL_SCOPES];

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * A parsed JSON answer as the tests read it: whatever the endpoint under test returned, its fields
 * read freely and checked by the assertions. A caller that wants its reads type-checked passes `T`.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeScript has no JSON type that allows reading fields unchecked; unknown or a JSON union turn each of ~800 field reads in test/ into a type error
export type Json = any;

/** The app as a client reaches it: over HTTP only, wherever it runs (in this process or a child). */
export interface ClientApp {
  url: string;
  dataDir: string;
  /** Every JSON log line the app wrote. */
  logs: string[];
  admin<T = Json>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  call<T = Json>(method: string, path: string, opts?: CallOptions): Promise<Reply<T>>;
  /** A fresh account with a key of the given scopes (all scopes when omitted). */
  customer(opts?: { scopes?: string[]; walletBalanceUsdCents?: number }): Promise<Customer>;
  stop(): Promise<void>;
}

/** The app started in this process: a client's view plus its insides (database, clock, jobs). */
export interface TestApp extends ClientApp {
  running: RunningApp;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Customer {
  accountId: string;
  key: string;
  keyId: string;
}

/** A fresh PostgreSQL database on TEST_DATABASE_URL's server, or undefined to use PGlite. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return undefined;
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

let customers = 0;

/**
 * Starts the app in-process on an ephemeral port, on PGlite in a temp dir (or PostgreSQL when
 * TEST_DATABASE_URL is set). `onQuery` sees every SQL statement the app sends (src/db/query-counter.ts).
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  opts: { onQuery?: (sql: string) => void } = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const database = await freshDatabase();
  const logs: string[] = [];
  const config = loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: database?.url,
      redisUrl: process.env.TEST_REDIS_URL || undefined,
      adminToken: ADMIN_TOKEN,
      backgroundJobs: false,
      seedDemo: false,
      logLevel: 'info',
      ...overrides,
    },
  );
  const running = await startApp(config, {
    logStream: { write: (line: string) => void logs.push(line) },
    onQuery: opts.onQuery,
  });
  return {
    ...clientApp(running.url, dataDir, logs, async () => {
      await running.stop();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }),
    running,
  };
}

/** A client of the app at `url`: plain HTTP calls, operator calls with ADMIN_TOKEN, fresh customers. */
export function clientApp(url: string, dataDir: string, logs: string[], stop: () => Promise<void>): ClientApp {
  async function request<T>(method: string, p: string, opts: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    // When the app runs in this process, the embedded database blocks its event loop while it
    // works: a kept-alive socket whose idle time ran out during such a block is closed by the
    // server's timer only once timers run again. Let them run (and the client see the close)
    // before sending, or the request can go out on that socket and meet ECONNRESET.
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setImmediate(r));
    const res = await fetch(url + p, { method, headers, body });
    const text = await res.text();
    let parsed: Json = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    if (res.status >= 500) {
      // The cause of a 5xx is only in the app's log: show it with the failing test's output.
      const id = res.headers.get('x-request-id');
      const causes = logs.filter((line) => id && line.includes(id) && /"level":(50|60)/.test(line));
      if (causes.length) console.error(`${method} ${p} → ${res.status}; logged:\n${causes.join('\n')}`);
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  const app: ClientApp = {
    url,
    dataDir,
    logs,
    admin: (method, p, body) => request(method, p, { body, headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }),
    call: request,
    async customer(opts = {}) {
      customers++;
      const account = await app.admin('POST', '/admin/accounts', {
        email: `customer${customers}-${randomBytes(3).toString('hex')}@example.com`,
        name: `Customer ${customers}`,
        country: 'DE',
        walletBalanceUsdCents: opts.walletBalanceUsdCents ?? 10_000,
      });
      if (account.status !== 201) throw new Error(`account: ${account.text}`);
      const key = await app.admin(
        'POST',
        `/admin/accounts/${account.body.id}/api-keys`,
        opts.scopes ? { scopes: opts.scopes } : { scopes: ALL },
      );
      if (key.status !== 201) throw new Error(`key: ${key.text}`);
      return { accountId: account.body.id, key: key.body.key, keyId: key.body.id };
    },
    stop,
  };
  return app;
}
