import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { App } from './app-services.ts';
import { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { databaseNamespace } from './db/namespace.ts';
import { onEventRecorded } from './events/outbox.ts';
import { Relay } from './events/relay.ts';
import { createEventStream } from './events/stream.ts';
import { GaplessEventStream } from './events/gapless.ts';
import { createAdminHandler } from './http/admin.ts';
import { createHooksHandler } from './http/hooks.ts';
import { createDashboardHandler } from './http/dashboard.ts';
import { createOAuthHandler } from './http/oauth.ts';
import { createApiHandler } from './http/api.ts';
import { createGraphQLServer } from './http/graphql.ts';
import { createOperationExecutor } from './http/execute-operation.ts';
import { buildToolCatalog } from './mcp/catalog.ts';
import { createMcpHandler } from './mcp/http.ts';
import { attachGraphQLWs } from './http/graphql-ws.ts';
import { Metrics } from './http/metrics.ts';
import { buildOpenApi } from './http/openapi.ts';
import { handleOps } from './http/ops.ts';
import { RateLimits } from './http/rate-limit.ts';
import { RestRoutes } from './http/rest-routes.ts';
import { createHttpServer } from './http/server.ts';
import { seedCatalogue } from './modules/catalogue/service.ts';
import { ensureDemoAccount } from './modules/account/demo.ts';
import * as servers from './modules/servers/service.ts';
import { runRenewals } from './modules/billing/renewals.ts';
import { sendDueDeliveries } from './modules/webhooks/delivery.ts';
import { resolveWebhookSecretKey } from './modules/webhooks/secrets.ts';
import { runDueJobs } from './provider/jobs.ts';
import { SimulatedProvider } from './provider/simulated.ts';
import { SimulatedHostingDriver } from './provider/hosting/simulated.ts';
import { hostingCallbacks } from './modules/hosting/service.ts';
import { getSchema } from './schema/index.ts';
import { oneAtATime } from './one-at-a-time.ts';

export interface RunningApp {
  app: App;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  /** The HTTP server (the benchmark serves its raw baseline beside the API on it). */
  server: http.Server;
  /** Graceful stop: refuse new connections, finish in-flight requests, close the database. */
  stop(): Promise<void>;
}

/** Starts one instance: database and migrations, catalogue, operator token, demo data, HTTP server. */
export async function startApp(config: Config, opts: { logStream?: DestinationStream; onQuery?: (sql: string) => void } = {}): Promise<RunningApp> {
  const log: Logger = pino({ level: config.logLevel, base: undefined, redact: ['req.headers.authorization', 'key', 'password'] }, opts.logStream);
  fs.mkdirSync(config.dataDir, { recursive: true });

  // Opening a new embedded database copies its template in a worker thread: build what depends
  // only on the schema meanwhile. (No await before `await opening`, so its failure is handled.)
  const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log: (msg) => log.info(msg), onQuery: opts.onQuery });
  const schema = getSchema();
  const yoga = createGraphQLServer(schema, () => app.limits);
  const openApi = buildOpenApi(schema);
  const restRoutes = new RestRoutes(schema);
  const toolCatalog = buildToolCatalog(schema);
  const db = await opening;
  const prisma = db.prisma;
  const clock = new Clock(prisma);
  await clock.load();
  const namespace = await databaseNamespace(prisma, config.databaseUrl);
  if (config.databaseUrl) clock.watch({ redisUrl: config.redisUrl, namespace, onError: (err) => log.warn({ err: err.message }, 'clock refresh failed') });
  await seedCatalogue(prisma);

  const provider = new SimulatedProvider(servers.providerCallbacks, { provisionSeconds: config.provisionSeconds });
  const hosting = new SimulatedHostingDriver(hostingCallbacks, { dataDir: config.dataDir, allowLocalGit: config.hostingAllowLocalGit });
  // One job table for the simulated datacenter: hosting provisioning runs beside the server jobs.
  Object.assign(provider.jobHandlers, hosting.jobHandlers);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const events = new GaplessEventStream(
    createEventStream({ redisUrl: config.redisUrl, namespace, onError: (err) => log.warn({ err: err.message }, 'event stream redis error') }),
    { prisma, log },
    { checkMs: 1000 },
  );
  const webhookSecretKey = resolveWebhookSecretKey({ key: config.webhookSecretKey, dataDir: config.dataDir, log });
  // Outbox → event stream + webhook delivery queue (src/events/relay.ts). It runs whatever
  // backgroundJobs says: relaying committed events is not clock-driven work.
  const relay = new Relay(
    { prisma, stream: events, now: () => clock.now(), log },
    { pollMs: 250, onRelayed: () => config.backgroundJobs && wakeDeliveries() },
  );
  await relay.init();
  await events.start();
  const offRecorded = onEventRecorded(() => relay.kick());
  const deliveryDeps = {
    prisma,
    now: () => clock.now(),
    log,
    secretKey: webhookSecretKey,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: () => config.webhookAllowPrivate,
  };

  let wake: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  // Due deliveries, one run at a time per instance (a run loops until none is due).
  const sending = oneAtATime(() => sendDueDeliveries(deliveryDeps));
  // Provider jobs (which record events), then the relay (events → delivery rows), then due
  // deliveries; one run at a time per instance, SKIP LOCKED keeps instances apart.
  const working = oneAtATime(async () => {
    const jobs = await runDueJobs(prisma, provider.jobHandlers, clock.now());
    await runRenewals(prisma, provider, clock.now());
    await relay.runOnce();
    await sending.run();
    return jobs;
  });
  // Relayed events have deliveries waiting: send them now, not at the next tick. Only the
  // deliveries: provider jobs and renewals keep to the ticker, or each event would cost their
  // queries too (what held the embedded database's webhook latency back).
  const wakeDeliveries = () => {
    if (stopping) return;
    wake ??= setTimeout(() => {
      wake = undefined;
      sending.run().catch((err) => log.error({ err }, 'webhook deliveries failed'));
    }, 10).unref();
  };
  const app: App = {
    config,
    db,
    prisma,
    clock,
    log,
    schema,
    limits: new RateLimits(redis, config.requestsPerMinute, namespace),
    redis,
    metrics: new Metrics(),
    provider,
    hosting,
    adminToken: resolveAdminToken(config, log),
    events,
    webhookSecretKey,
    ready: false,
    // A stopped instance must not relay: its listeners are gone (the events would be lost to them).
    runDueWork: async () => (stopping ? 0 : working.run()),
  };

  if (!config.databaseUrl && config.seedDemo) await ensureDemoAccount(app);

  const dashboard = createDashboardHandler(app);
  const server = createHttpServer(app, {
    api: createApiHandler(app, yoga, restRoutes, () => openApi),
    admin: createAdminHandler(app),
    hooks: createHooksHandler(app),
    mcp: createMcpHandler(app, toolCatalog, createOperationExecutor(app, yoga)),
    ops: (req, res, p) => handleOps(app, req, res, p),
    oauth: createOAuthHandler(app, dashboard.devicePage),
    dashboard: dashboard.handle,
  });
  const graphqlWs = attachGraphQLWs(server, app, yoga);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  app.ready = true;
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info({ url, database: db.kind }, 'listening');

  const ticker = config.backgroundJobs
    ? setInterval(() => app.runDueWork().catch((err) => log.error({ err }, 'background work failed')), 1000)
    : undefined;
  ticker?.unref();
  relay.start();

  const stop = () =>
    (stopping ??= (async () => {
      if (ticker) clearInterval(ticker);
      clock.stop();
      clearTimeout(wake);
      offRecorded();
      await graphqlWs.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(force);
      await working.settled();
      await sending.settled();
      await relay.stop();
      await events.close();
      redis?.disconnect();
      await db.close();
      log.info('stopped');
    })());
  return { app, url, port, server, stop };
}

/** ADMIN_TOKEN, or one generated once and kept in DATA_DIR/admin-token (the log names the file, never the value). */
function resolveAdminToken(config: Config, log: Logger): string {
  if (config.adminToken) return config.adminToken;
  const file = path.join(config.dataDir, 'admin-token');
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    log.info({ file }, 'ADMIN_TOKEN not set: generated an operator token');
  } else {
    log.info({ file }, 'ADMIN_TOKEN not set: using the operator token from the data directory');
  }
  return fs.readFileSync(file, 'utf8').trim();
}
