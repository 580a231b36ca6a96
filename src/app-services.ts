import type { GraphQLSchema } from 'graphql';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Outages } from './db/outage.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { EventStream } from './events/stream.ts';
import type { LiveChangeStream } from './events/live-changes.ts';
import type { Metrics } from './http/operator/metrics.ts';
import type { Overload } from './http/admission/overload.ts';
import type { RateLimits } from './http/admission/rate-limit.ts';
import type { ServerProvider } from './provider/types.ts';
import type { HostingDriver } from './provider/hosting/types.ts';
import type { KeyUseRecorder } from './modules/auth/key-usage.ts';
import type { PrincipalCache } from './modules/auth/principal-cache.ts';

/** The long-lived parts of one running instance, shared by every request. */
export interface App {
  config: Config;
  db: Database;
  prisma: PrismaClient;
  clock: Clock;
  log: Logger;
  schema: GraphQLSchema;
  limits: RateLimits;
  /** Writes `ApiKey.lastUsedAt` off the request's path, at most once a minute per key. */
  keyUse: KeyUseRecorder;
  /** Credentials resolved in the last few seconds, by the hash of their secret; forgotten on every instance when one changes. */
  principals: PrincipalCache;
  /** Logs each outage of PostgreSQL and Redis once, not once per failed request (db/outage.ts). */
  outages: Outages;
  /** The Redis connection for shared counters, when REDIS_URL is set (readiness pings it). */
  redis?: Redis;
  metrics: Metrics;
  /** What the instance admits at once: the concurrent-requests limiter and load shedder. */
  overload: Overload;
  provider: ServerProvider;
  /** Web hosting: each account's site is a real directory under DATA_DIR/hosting (src/provider/hosting). */
  hosting: HostingDriver;
  adminToken: string;
  /** Committed events, published by the relay (in-process, or Redis pub/sub with REDIS_URL). */
  events: EventStream;
  /** Live changes committed by any instance, as this one hears them (src/events/live-changes.ts). */
  liveChanges: LiveChangeStream;
  /** 32-byte AES-256-GCM key for webhook signing secrets at rest. */
  webhookSecretKey: Buffer;
  /** True once migrations are applied and the catalogue is seeded. */
  ready: boolean;
  /** Runs whatever the simulated clock has made due (provider jobs); returns how many ran. */
  runDueWork(): Promise<number>;
}
