import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { admitStatement } from '../core/database-budget.ts';
import { applyPendingMigrations } from './migrate.ts';
import { pgliteTarget, postgresTarget } from './migration-targets.ts';
import { listenPostgres, type ListenOptions, type Listening } from './listen.ts';
import { countQueries } from './query-counter.ts';
import { withRecoveryPoints } from './recovery.ts';
import { registerRawReads, type RawReads } from './tenant.ts';
import { startEmbeddedAutovacuum } from './embedded-autovacuum.ts';
import { fastQueryClient, type AdapterClient } from './pglite-fast-client.ts';
import { copyTemplate, ensureTemplate, hasTemplate, setBufferCache } from './pglite-template.ts';

/**
 * Every interactive transaction's options, set once on the client (Prisma's `transactionOptions`)
 * so no `$transaction` call can forget them: transactions queue behind others (PGlite runs one at
 * a time; PostgreSQL waits on row locks), so each waits up to 20 s to start rather than Prisma's
 * 2 s default, and may run 30 s rather than 5 s.
 */
const TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 30_000 } as const;

/** Most distinct statements kept prepared on each connection (PostgreSQL's, and the embedded database's one). */
const PREPARED_STATEMENTS = 1000;
const statementNames = new Map<string, string>();

/**
 * Names the statements Prisma sends, so each connection parses and plans a statement once and
 * then only binds and executes it: the text of a nested list query is kilobytes, sent and
 * parsed on every request otherwise. The first PREPARED_STATEMENTS distinct texts get a name
 * (a hash of the text); any beyond them (long IN lists, say) go unnamed, as before, so the
 * statements held by a connection stay bounded.
 */
function preparedStatementName(query: { sql: string }): string {
  let name = statementNames.get(query.sql);
  if (name === undefined && statementNames.size < PREPARED_STATEMENTS) {
    name = `svc_${createHash('sha1').update(query.sql).digest('base64url')}`;
    statementNames.set(query.sql, name);
  }
  return name ?? ''; // '' leaves the statement unnamed
}

/** The hand-written reads reported to `onQuery` like Prisma's statements. */
function countRawReads(reads: RawReads, onQuery: (sql: string) => void): RawReads {
  return {
    rows: (sql, values) => {
      onQuery(sql);
      return reads.rows(sql, values);
    },
  };
}

/**
 * How long anything waits on PostgreSQL, so a frozen server or a cut network costs a request
 * seconds, not the kernel's TCP timeout: a connection is made within 3 s, a statement runs at
 * most 4 s on the server (lock waits included), and the client gives up on an answer after
 * 4.5 s (the server cannot cancel what it never hears about). TCP keepalive finds a dead peer
 * under idle connections.
 */
const POOL_BOUNDS = {
  connectionTimeoutMillis: 3000,
  statement_timeout: 4000,
  query_timeout: 4500,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
} as const;

/**
 * A connection whose query timed out client-side is closed at once: its answer may still come,
 * out of step with whatever is sent next, and a transaction's ROLLBACK on it would wait out
 * another timeout. Closed, the rollback fails fast and the pool opens a new connection.
 */
class DroppingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: one override stands for all of pg.Client's query overloads (submittable, promise, callback); only any is assignable to each
  override query(...args: unknown[]): any {
    // The pool's own query() passes a callback; Prisma's adapter awaits a promise.
    const last = args.length - 1;
    const callback =
      typeof args[last] === 'function' ? (args[last] as (err: Error | undefined, res?: unknown) => void) : undefined;
    // Each statement spends from its request's database budget (core/database-budget.ts) and waits no longer than what is left of it.
    const config = args[0];
    const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
    let admitted: ReturnType<typeof admitStatement>;
    try {
      admitted = admitStatement(text, POOL_BOUNDS.query_timeout);
    } catch (err) {
      if (!callback) return Promise.reject(err);
      return void process.nextTick(callback, err);
    }
    if (admitted.timeoutMs < POOL_BOUNDS.query_timeout)
      args[0] =
        typeof config === 'string'
          ? { text: config, query_timeout: admitted.timeoutMs }
          : { ...(config as object), query_timeout: admitted.timeoutMs };
    const settled = (err?: Error) => {
      admitted.settle();
      // end() destroys the socket of a connection still waiting on an answer: it waits for nothing.
      if (err?.message === 'Query read timeout') void this.end();
    };
    if (callback) {
      args[last] = (err: Error | undefined, res: unknown) => {
        settled(err);
        return callback(err, res);
      };
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (!(result instanceof Promise)) return result;
    return result.then(
      (value) => {
        settled();
        return value;
      },
      (err: Error) => {
        settled(err);
        throw err;
      },
    );
  }
}

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  /** The embedded database's lean client (PGlite only), which Prisma's adapter uses: the benchmark's hand-written anchor queries through it. */
  embedded?: AdapterClient;
  /** Cheap liveness probe for /readyz. */
  ping(): Promise<void>;
  /** LISTENs on `channel` (its own connection on PostgreSQL, reconnecting; PGlite's in-process listen on the embedded database). */
  listen(channel: string, opts: ListenOptions): Promise<Listening>;
  close(): Promise<void>;
}

/**
 * Opens the database the configuration names and applies pending migrations:
 * PostgreSQL through @prisma/adapter-pg when DATABASE_URL is set, otherwise PGlite
 * (PostgreSQL compiled to WebAssembly) stored under DATA_DIR/pgdata.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  /** PostgreSQL connections in the pool (config: DATABASE_POOL_SIZE); pg's own default when not said. */
  poolSize?: number;
  dataDir: string;
  log?: (msg: string) => void;
  onQuery?: (sql: string) => void;
}): Promise<Database> {
  const counted = <F extends SqlDriverAdapterFactory>(f: F): F => (opts.onQuery ? countQueries(f, opts.onQuery) : f);
  const countedReads = (reads: RawReads): RawReads => (opts.onQuery ? countRawReads(reads, opts.onQuery) : reads);
  const databaseUrl = opts.databaseUrl;
  if (databaseUrl) {
    await applyPendingMigrations(postgresTarget(databaseUrl), { log: opts.log });
    // Fail fast when PostgreSQL is unreachable: requests answer 503 instead of queueing.
    // One pool, Prisma's and the hand-written tenant reads' (tenant.ts), so both share its bound.
    const pool = new pg.Pool({
      ...POOL_BOUNDS,
      Client: DroppingClient,
      connectionString: databaseUrl,
      max: opts.poolSize,
    });
    const adapter = new PrismaPg(pool, { statementNameGenerator: preparedStatementName, disposeExternalPool: true });
    const prisma = withRecoveryPoints(
      new PrismaClient({ adapter: counted(adapter), errorFormat: 'minimal', transactionOptions: TRANSACTION_OPTIONS }),
    );
    registerRawReads(
      prisma,
      countedReads({
        rows: async (sql, values) =>
          (await pool.query({ name: preparedStatementName({ sql }) || undefined, text: sql, values })).rows,
      }),
    );
    return {
      prisma,
      kind: 'postgresql',
      ping: async () => void (await prisma.$queryRawUnsafe('SELECT 1')),
      listen: async (channel, listenOpts) => listenPostgres(databaseUrl, channel, listenOpts),
      close: () => prisma.$disconnect(),
    };
  }
  const dir = path.join(opts.dataDir, 'pgdata');
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    // A new database: copy the migrated template (building it first if this is the first ever).
    // With the template built, nothing is awaited before the copy's worker starts, so it runs
    // while the caller builds the schema (app.ts); an await here would start it only after.
    if (!hasTemplate())
      await ensureTemplate(opts.log).catch((err) =>
        opts.log?.(`no database template (${err.message}); running initdb`),
      );
    if (await copyTemplate(dir)) opts.log?.('new embedded database from the migrated template');
  }
  setBufferCache(dir);
  const pglite = new PGlite(dir);
  // PGlite's interface with a leaner `query` (one call into WebAssembly per execution).
  const client = fastQueryClient(pglite, { preparedStatements: PREPARED_STATEMENTS });
  await applyPendingMigrations(pgliteTarget(client), { log: opts.log });
  // The client is not a PGlite but implements what the adapter calls on it
  // (docs/DESIGN.md: Private members we still rely on).
  const adapter = new PrismaPGlite(client as unknown as PGlite);
  const prisma = withRecoveryPoints(
    new PrismaClient({ adapter: counted(adapter), errorFormat: 'minimal', transactionOptions: TRANSACTION_OPTIONS }),
  );
  registerRawReads(
    prisma,
    countedReads({ rows: async (sql, values) => (await client.query(sql, values)).rows as Record<string, unknown>[] }),
  );
  const autovacuum = startEmbeddedAutovacuum(client, {
    onError: (err) => opts.log?.(`embedded autovacuum failed: ${err.message}`),
  });
  // Everything below goes through the client, which holds the instance's transaction lock:
  // sent past it, a statement would become part of whatever transaction is open.
  return {
    prisma,
    kind: 'pglite',
    embedded: client,
    ping: async () => void (await client.query('SELECT 1')),
    listen: async (channel, { onNotify, onListening }) => {
      const unlisten = await client.listen(channel, (payload) => onNotify(payload));
      onListening?.(); // in process: it never disconnects
      return { close: unlisten };
    },
    close: async () => {
      await autovacuum.stop();
      await prisma.$disconnect();
      await client.close();
    },
  };
}
