import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { GraphQLSchema } from 'graphql';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { App } from './app-services.ts';
import { createBackground, type Background } from './background.ts';
import { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/client.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import type { Listening } from './db/listen.ts';
import { Outage, type Outages } from './db/outage.ts';
import { withClockTimestamps } from './db/timestamps.ts';
import { databaseNamespace } from './db/namespace.ts';
import { createEventStream, connectRedis } from './events/stream.ts';
import { GaplessEventStream } from './events/gapless.ts';
import { LIVE_CHANGES_CHANNEL, LIVE_CHANGES_LISTENER_NAME, LiveChangeStream } from './events/live-changes.ts';
import { adminRouter } from './http/operator/admin.ts';
import { createHooksHandler } from './http/hooks/hooks.ts';
import { createTerminalHandler } from './http/pages/ssh-terminal.ts';
import { createServerConsole, SERVER_CONSOLE_SOCKET } from './http/pages/server-console.ts';
import { createDashboardHandler } from './http/dashboard/dashboard.ts';
import { createDocsHandler } from './http/pages/docs.ts';
import { createOAuthHandler } from './http/oauth/oauth.ts';
import { createPipeline } from './http/api.ts';
import { createGraphQLServer, type YogaServer } from './http/graphql/graphql.ts';
import { createDocumentExecutor, createOperationExecutor } from './http/executor/execute-operation.ts';
import { createExecutor, type Executor } from './http/executor/index.ts';
import { buildToolCatalog } from './mcp/catalog.ts';
import { createCodeModeRunner } from './mcp/code-mode.ts';
import { createMcpExecutor } from './mcp/http.ts';
import { attachGraphQLWs } from './http/graphql/graphql-ws.ts';
import { listenHttp, type ListeningSockets } from './http/listen.ts';
import { Metrics } from './http/operator/metrics.ts';
import { Overload } from './http/admission/overload.ts';
import { buildOpenApi } from './http/rest/openapi.ts';
import { RateLimits } from './http/admission/rate-limit.ts';
import { v1Router } from './http/rest/rest-routes.ts';
import { createHttpServer } from './http/server.ts';
import { seedCatalogue } from './db/catalogue-seed.ts';
import { ensureDemoAccount } from './modules/account/demo.ts';
import { KeyUseRecorder } from './modules/auth/key-usage.ts';
import {
  announceCredentialChange,
  countCredentialListeners,
  CREDENTIALS_CHANNEL,
  CREDENTIALS_LISTENER_NAME,
  PrincipalCache,
} from './modules/auth/principal-cache.ts';
import { resolveWebhookSecretKey } from './modules/webhooks/secrets.ts';
import { SimulatedProvider } from './provider/simulated.ts';
import { SimulatedHostingDriver } from './provider/hosting/simulated.ts';
import { AREA_RUNTIMES, driverCallbacks } from './modules/runtimes.ts';
import { getSchema } from './schema/index.ts';
import { restView } from './schema/rest-view.ts';

export interface RunningApp {
  app: App;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  /** The HTTP server (the benchmark serves its raw baseline beside the API on it). */
  server: http.Server;
  /** The relay, the delivery worker, provider jobs and the ticker (src/background.ts). */
  background: Background;
  /** Graceful stop: refuse new connections, finish in-flight requests, close the database. */
  stop(): Promise<void>;
}

/**
 * Starts one instance: database and migrations, catalogue, operator token, demo data, HTTP server.
 * Each step is a function below, in the order the instance needs them; `stop` (stopInstance)
 * closes what takes work first and the database last.
 */
export async function startApp(
  config: Config,
  opts: { logStream?: DestinationStream; onQuery?: (sql: string) => void } = {},
): Promise<RunningApp> {
  const log = createLog(config, opts.logStream);
  const { db, api } = await openDatabaseBuildingTheApi(config, log, opts.onQuery);
  const data = await startDataLayer(config, log, db);
  const upstream = createUpstream(config);
  const events = await startEvents(config, log, data, upstream);
  const changes = await listenForChanges(log, data);
  const app = assembleApp(config, log, api, data, upstream, events, changes);
  if (!config.databaseUrl && config.seedDemo)
    await ensureDemoAccount(app, { jobHandlers: upstream.provider.jobHandlers });
  const transports = createTransports(app, api);
  const listening = await listen(app, transports.server);
  const { port, url } = listening;
  // The work off the request path (relay, deliveries, provider jobs, the ticker) starts last.
  await events.background.start();
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopInstance(app, data, events, changes, transports, listening));
  return { app, url, port, server: transports.server, background: events.background, stop };
}

/** The logger of the instance; credentials and passwords never reach a line. */
function createLog(config: Config, logStream: DestinationStream | undefined): Logger {
  return pino(
    { level: config.logLevel, base: undefined, redact: ['req.headers.authorization', 'key', 'password'] },
    logStream,
  );
}

/** What the schema gives the transports: built once, before the first request. */
interface Api {
  schema: GraphQLSchema;
  openApi: object;
  restRoutes: ReturnType<typeof v1Router>;
  toolCatalog: ReturnType<typeof buildToolCatalog>;
  executor: Executor;
  yoga: YogaServer;
}

/**
 * The database opened (migrations applied) and, meanwhile, the schema, its documents and the one
 * executor built: opening a new embedded database copies its template in a worker thread, so
 * what depends only on the schema is built while it copies.
 */
async function openDatabaseBuildingTheApi(
  config: Config,
  log: Logger,
  onQuery: ((sql: string) => void) | undefined,
): Promise<{ db: Database; api: Api }> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  // No await before `await opening`, so its failure is handled.
  const opening = openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: config.dataDir,
    log: (msg) => log.info(msg),
    onQuery,
  });
  const schema = getSchema();
  const openApi = buildOpenApi(restView(schema));
  const restRoutes = v1Router(schema);
  const toolCatalog = buildToolCatalog(schema);
  // sofa-api generates the /v1 operations; each is compiled once for the executor.
  const [db, executor] = await Promise.all([opening, createExecutor(schema)]);
  const yoga = createGraphQLServer(schema, executor);
  return { db, api: { schema, openApi, restRoutes, toolCatalog, executor, yoga } };
}

/** The data layer as the app uses it: the simulated clock's timestamps on every write, Redis when configured. */
interface DataLayer {
  db: Database;
  clock: Clock;
  prisma: App['prisma'];
  namespace: string;
  redis: App['redis'];
  outages: Outages;
  /** Counts a Redis failure as an outage of Redis. */
  redisFailed: (err: Error) => void;
}

/** The simulated clock, the timestamped client, Redis and the outage watchers; the catalogue seeded. */
async function startDataLayer(config: Config, log: Logger, db: Database): Promise<DataLayer> {
  const clock = new Clock(db.prisma);
  await clock.load();
  // Every write through the app takes its createdAt/updatedAt from the simulated clock.
  const prisma = withClockTimestamps(db.prisma, () => clock.now());
  const namespace = await databaseNamespace(prisma, config.databaseUrl);
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const outages: Outages = {
    database: new Outage('database', log, () => db.ping()),
    redis: redis ? new Outage('redis', log, () => redis.ping()) : undefined,
  };
  // An error that is an outage of the database or Redis is counted by it; anything else is logged as itself.
  const warnOr = (msg: string) => (err: Error) =>
    isDatabaseUnavailable(err) ? outages.database.failed(err) : log.warn({ err: err.message }, msg);
  const redisFailed = (err: Error) => outages.redis?.failed(err);
  if (config.databaseUrl)
    clock.watch({ redisUrl: config.redisUrl, namespace, onError: warnOr('clock refresh failed') });
  await seedCatalogue(prisma);
  return { db, clock, prisma, namespace, redis, outages, redisFailed };
}

/** The simulated datacenter: the server provider and the hosting driver, one job table for both. */
function createUpstream(config: Config) {
  // The drivers report finished upstream work to the areas that hand in their callbacks (runtime.ts).
  const callbacks = driverCallbacks();
  const provider = new SimulatedProvider(callbacks.serverDriver, { provisionSeconds: config.provisionSeconds });
  const hosting = new SimulatedHostingDriver(callbacks.hostingDriver, {
    dataDir: config.dataDir,
    allowLocalGit: config.hostingAllowLocalGit,
  });
  // One job table for the simulated datacenter: hosting provisioning runs beside the server jobs,
  // and any area's own job kinds (its runtime's jobHandlers) beside them.
  Object.assign(provider.jobHandlers, hosting.jobHandlers, ...AREA_RUNTIMES.map((r) => r.jobHandlers ?? {}));
  return { provider, hosting };
}
type Upstream = ReturnType<typeof createUpstream>;

/**
 * The event stream, started, and the work off the request path (src/background.ts), made now and
 * started once the server listens.
 */
async function startEvents(config: Config, log: Logger, data: DataLayer, upstream: Upstream) {
  const { db, prisma, clock, outages, redisFailed } = data;
  data.redis?.on('error', redisFailed);
  const events = new GaplessEventStream(
    createEventStream({ redisUrl: config.redisUrl, namespace: data.namespace, onError: redisFailed }),
    { prisma, log },
    { checkMs: 1000 },
  );
  const webhookSecretKey = resolveWebhookSecretKey({ key: config.webhookSecretKey, dataDir: config.dataDir, log });
  const background = await createBackground({
    config,
    db,
    prisma,
    clock,
    log,
    provider: upstream.provider,
    events,
    webhookSecretKey,
    outages,
  });
  await events.start();
  return { events, webhookSecretKey, background };
}
type Events = Awaited<ReturnType<typeof startEvents>>;

/** What this instance hears from every instance through the database: credential changes and live changes. */
interface Changes {
  principals: PrincipalCache;
  credentialChanges: Listening;
  liveChanges: LiveChangeStream;
  liveChangesListening: Listening;
}

/** The principal cache and the live-change stream, each fed by its own LISTEN. */
async function listenForChanges(log: Logger, { db, prisma }: DataLayer): Promise<Changes> {
  // Every instance forgets a credential the moment its change commits, whichever instance made it (docs/REFERENCE.md: Authentication).
  const principals = new PrincipalCache({
    peers: {
      acknowledge: async (payload) => void (await announceCredentialChange(prisma, payload)),
      listening: async () => (db.kind === 'pglite' ? 1 : countCredentialListeners(prisma)),
      onError: (err) => log.warn({ err: err.message }, 'acknowledging a credential change failed'),
    },
  });
  const credentialChanges = await db.listen(CREDENTIALS_CHANNEL, {
    applicationName: CREDENTIALS_LISTENER_NAME,
    onListening: () => principals.listeningFromNow(),
    onNotify: (payload) => payload !== undefined && principals.notified(payload),
    onError: (err) => {
      principals.notListening();
      log.warn({ err: err.message }, 'credential listener connection lost; reconnecting');
    },
  });
  // Live changes reach this instance's subscribers straight from the database, whichever instance committed them.
  const liveChanges = new LiveChangeStream();
  const liveChangesListening = await db.listen(LIVE_CHANGES_CHANNEL, {
    applicationName: LIVE_CHANGES_LISTENER_NAME,
    onNotify: (payload) => payload && liveChanges.received(payload),
    onError: (err) => log.warn({ err: err.message }, 'live changes listener connection lost; reconnecting'),
  });
  return { principals, credentialChanges, liveChanges, liveChangesListening };
}

/** The App every request shares (src/app-services.ts): the parts above and the services made for it. */
function assembleApp(
  config: Config,
  log: Logger,
  api: Api,
  { db, prisma, clock, namespace, redis, outages, redisFailed }: DataLayer,
  { provider, hosting }: Upstream,
  { events, webhookSecretKey, background }: Events,
  { principals, liveChanges }: Changes,
): App {
  const metrics = new Metrics();
  return {
    config,
    db,
    prisma,
    clock,
    log,
    schema: api.schema,
    limits: new RateLimits(
      redis,
      config.requestsPerMinute,
      namespace,
      config.accountRequestsPerMinute,
      redisFailed,
      config.sessionRequestsPerMinute,
    ),
    keyUse: new KeyUseRecorder({ prisma, now: () => clock.now(), log }),
    principals,
    outages,
    redis,
    metrics,
    overload: new Overload(config.overload, metrics),
    provider,
    hosting,
    adminToken: resolveAdminToken(config, log),
    events,
    liveChanges,
    webhookSecretKey,
    ready: false,
    runDueWork: () => background.runDueWork(),
  };
}

/** The HTTP server with every surface behind the request pipeline (src/http/api.ts), and the WebSocket upgrades. */
function createTransports(app: App, { schema, openApi, restRoutes, toolCatalog, executor, yoga }: Api) {
  const dashboard = createDashboardHandler(app);
  const docs = createDocsHandler(app);
  const serverConsole = createServerConsole(app);
  const mcp = createMcpExecutor(
    toolCatalog,
    createOperationExecutor(app, executor),
    createCodeModeRunner(schema, createDocumentExecutor(app, yoga)),
  );
  const pipeline = createPipeline(
    app,
    {
      v1: restRoutes,
      admin: adminRouter,
      openApi: () => openApi,
      graphiql: docs.graphiql,
      oauth: createOAuthHandler(app, dashboard.devicePage),
      hooks: createHooksHandler(app),
      terminal: createTerminalHandler(app),
      serverConsole: serverConsole.handlePage,
      docs: docs.handle,
      dashboard: dashboard.handle,
    },
    { executor, yoga, mcp },
  );
  const server = createHttpServer(app, pipeline);
  const graphqlWs = attachGraphQLWs(server, app, yoga, { [SERVER_CONSOLE_SOCKET]: serverConsole.upgrade });
  return { server, graphqlWs, serverConsole, mcp };
}
type Transports = ReturnType<typeof createTransports>;

/** Listens on config.host and config.port; the app is ready from then on. */
async function listen(app: App, server: http.Server): Promise<ListeningSockets & { url: string }> {
  const { config } = app;
  const listening = await listenHttp(server, config.host, config.port);
  app.ready = true;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${listening.port}`;
  app.log.info({ url, database: app.db.kind }, 'listening');
  return { ...listening, url };
}

/**
 * The graceful stop: the clock's watch, then the transports (sockets, then the server, its
 * in-flight requests finished), the background work, the listeners, the pending writes and the
 * streams, and the database last.
 */
async function stopInstance(
  app: App,
  { clock, redis, outages, db }: DataLayer,
  { events, background }: Events,
  { credentialChanges, liveChangesListening, liveChanges }: Changes,
  { server, graphqlWs, serverConsole, mcp }: Transports,
  listening: ListeningSockets,
): Promise<void> {
  clock.stop();
  await graphqlWs.close();
  await serverConsole.close();
  mcp.endStreams();
  const closed = Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), listening.close()]);
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
  await background.stop();
  await credentialChanges.close();
  await liveChangesListening.close();
  liveChanges.close();
  await app.keyUse.settled();
  await events.close();
  redis?.disconnect();
  outages.database.stop();
  outages.redis?.stop();
  app.overload.close();
  await db.close();
  app.log.info('stopped');
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
