import path from 'node:path';
import { TrustedProxies } from './trusted-proxies.ts';

/**
 * The account-wide rate ceiling, as a multiple of the per-credential limit: every credential of
 * an account also spends from one account bucket, so minting more keys does not buy more budget.
 */
export const ACCOUNT_LIMIT_MULTIPLE = 5;

/**
 * A console session's own budget by default (SESSION_REQUESTS_PER_MINUTE): a person clicking
 * through pages makes bursts a program's 120 would refuse; the account's ceiling still applies.
 */
export const SESSION_REQUESTS_PER_MINUTE = 600;

/** Everything the process reads from its environment, in one place (README: Configuration). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** DATABASE_POOL_SIZE: PostgreSQL connections per instance (src/db/client.ts). */
  databasePoolSize: number;
  redisUrl?: string;
  publicBaseUrl: string;
  /**
   * TRUST_PROXY: the proxies (addresses, CIDR blocks, `loopback`) whose X-Forwarded-For is
   * believed when they are the peer; unset, the client address is the peer's (src/http/request/client-address.ts).
   */
  trustProxy?: TrustedProxies;
  adminToken?: string;
  logLevel: string;
  webhookAllowPrivate: boolean;
  /** WEBHOOK_SECRET_KEY: 32-byte key (64 hex chars or base64) encrypting webhook secrets; else DATA_DIR/webhook-secret-key. */
  webhookSecretKey?: string;
  /** Milliseconds one webhook delivery may take (connect, send, response headers and body). */
  webhookTimeoutMs: number;
  /** Largest JSON request body accepted, in bytes. */
  bodyLimitBytes: number;
  /**
   * REQUEST_TIMEOUT_MS: the longest one request may take to arrive, headers and body (Node's
   * default is 300 s). Long enough for a full-size upload on a slow link; headers get 15 s.
   */
  requestTimeoutMs: number;
  /** Seconds the simulated datacenter takes to provision a server. */
  provisionSeconds: number;
  /** Largest hosting file upload (HOSTING_UPLOAD_LIMIT_BYTES), in bytes. */
  hostingUploadLimitBytes: number;
  /**
   * HOSTING_ALLOW_LOCAL_GIT=1: git deploy also accepts local repository paths, file:// URLs and
   * ssh hosts on loopback or private addresses (development and tests). WEBHOOK_ALLOW_PRIVATE
   * never opens git to them.
   */
  hostingAllowLocalGit: boolean;
  /** Run the background ticker that moves the simulated datacenter with real time. */
  backgroundJobs: boolean;
  /** Create the demo account on first embedded start. */
  seedDemo: boolean;
  /**
   * Not from the environment: the spec fixes 120 per credential. Benchmarks and load tests raise it.
   */
  requestsPerMinute: number;
  /**
   * ACCOUNT_REQUESTS_PER_MINUTE: the ceiling all credentials of one account share (0: none).
   * Defaults to ACCOUNT_LIMIT_MULTIPLE times requestsPerMinute, so raising that raises both.
   */
  accountRequestsPerMinute: number;
  /** SESSION_REQUESTS_PER_MINUTE: a console session's own budget (see SESSION_REQUESTS_PER_MINUTE above). */
  sessionRequestsPerMinute: number;
  /**
   * Not from the environment: how often the event relay polls the outbox, the safety net
   * behind the commit-time notification that normally wakes it (tests slow it down to show
   * the notification alone relays promptly).
   */
  relayPollMs: number;
  /**
   * Not from the environment: how long (wall clock) a request holds its Idempotency-Key before a
   * retry may take it over; a claim whose mutation never committed frees itself after it.
   */
  idempotencyLeaseMs: number;
  /** OVERLOAD_*: the concurrent-requests limiter and load shedder (src/http/admission/overload.ts; REFERENCE: Overload). */
  overload: OverloadLimits;
}

/** What one instance admits at once (src/http/admission/overload.ts). */
export interface OverloadLimits {
  /** OVERLOAD_MAX_IN_FLIGHT: requests this instance serves at once. */
  maxInFlight: number;
  /** OVERLOAD_MAX_QUEUED: requests waiting for a slot at most; beyond it a request is refused at once. */
  maxQueued: number;
  /** OVERLOAD_QUEUE_WAIT_MS: how long a request may wait for a slot. */
  maxQueueWaitMs: number;
  /** OVERLOAD_CREDENTIAL_IN_FLIGHT: requests of one credential in flight at once. */
  maxInFlightPerCredential: number;
  /** OVERLOAD_EVENT_LOOP_DELAY_MS: event-loop delay (p99 over a second) past which a busy instance sheds reads. */
  maxEventLoopDelayMs: number;
}

/** OVERLOAD_MAX_IN_FLIGHT's default on the embedded database (bench scenario 9, bench/README.md). */
const EMBEDDED_SLOTS = 4;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = overrides.port ?? intFrom(env.PORT, 8080, 'PORT');
  const host = overrides.host ?? env.HOST ?? '127.0.0.1';
  const databasePoolSize =
    overrides.databasePoolSize ?? positiveIntFrom(env.DATABASE_POOL_SIZE, 10, 'DATABASE_POOL_SIZE');
  // A request admitted past what the database runs at once would only wait there, first come
  // first served, where the admission queue's order and deadlines cannot reach it: on PostgreSQL
  // the pool's size; the embedded database runs one statement at a time, and a few more slots
  // keep its thread busy while others parse and write (REFERENCE: Overload).
  const onPostgres = Boolean(overrides.databaseUrl ?? env.DATABASE_URL);
  const config: Config = {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR ?? './.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize,
    redisUrl: env.REDIS_URL || undefined,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    trustProxy: env.TRUST_PROXY ? TrustedProxies.parse(env.TRUST_PROXY) : undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    webhookSecretKey: env.WEBHOOK_SECRET_KEY || undefined,
    webhookTimeoutMs: intFrom(env.WEBHOOK_TIMEOUT_MS, 10_000, 'WEBHOOK_TIMEOUT_MS'),
    bodyLimitBytes: intFrom(env.BODY_LIMIT_BYTES, 1024 * 1024, 'BODY_LIMIT_BYTES'),
    requestTimeoutMs: intFrom(env.REQUEST_TIMEOUT_MS, 120_000, 'REQUEST_TIMEOUT_MS'),
    provisionSeconds: intFrom(env.SIM_PROVISION_SECONDS, 120, 'SIM_PROVISION_SECONDS'),
    hostingUploadLimitBytes: intFrom(env.HOSTING_UPLOAD_LIMIT_BYTES, 50 * 1024 * 1024, 'HOSTING_UPLOAD_LIMIT_BYTES'),
    hostingAllowLocalGit: env.HOSTING_ALLOW_LOCAL_GIT === '1',
    backgroundJobs: env.BACKGROUND_JOBS !== '0',
    seedDemo: true,
    requestsPerMinute: 120,
    accountRequestsPerMinute: intFrom(
      env.ACCOUNT_REQUESTS_PER_MINUTE,
      ACCOUNT_LIMIT_MULTIPLE * (overrides.requestsPerMinute ?? 120),
      'ACCOUNT_REQUESTS_PER_MINUTE',
    ),
    sessionRequestsPerMinute: positiveIntFrom(
      env.SESSION_REQUESTS_PER_MINUTE,
      SESSION_REQUESTS_PER_MINUTE,
      'SESSION_REQUESTS_PER_MINUTE',
    ),
    relayPollMs: 1000,
    idempotencyLeaseMs: 30_000,
    overload: {
      maxInFlight: positiveIntFrom(
        env.OVERLOAD_MAX_IN_FLIGHT,
        onPostgres ? databasePoolSize : EMBEDDED_SLOTS,
        'OVERLOAD_MAX_IN_FLIGHT',
      ),
      maxQueued: intFrom(env.OVERLOAD_MAX_QUEUED, 2048, 'OVERLOAD_MAX_QUEUED'),
      maxQueueWaitMs: intFrom(env.OVERLOAD_QUEUE_WAIT_MS, 4000, 'OVERLOAD_QUEUE_WAIT_MS'),
      maxInFlightPerCredential: positiveIntFrom(env.OVERLOAD_CREDENTIAL_IN_FLIGHT, 25, 'OVERLOAD_CREDENTIAL_IN_FLIGHT'),
      maxEventLoopDelayMs: positiveIntFrom(env.OVERLOAD_EVENT_LOOP_DELAY_MS, 200, 'OVERLOAD_EVENT_LOOP_DELAY_MS'),
    },
    ...overrides,
  };
  if (overrides.dataDir) config.dataDir = path.resolve(overrides.dataDir);
  return config;
}

function positiveIntFrom(value: string | undefined, fallback: number, name: string): number {
  const n = intFrom(value, fallback, name);
  if (n === 0) throw new Error(`${name} must be at least 1`);
  return n;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}
