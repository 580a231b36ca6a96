import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Listening } from './db/listen.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { EVENTS_CHANNEL } from './events/outbox.ts';
import { Relay } from './events/relay.ts';
import type { EventStream } from './events/stream.ts';
import { runRenewals } from './modules/billing/renewals.ts';
import { sendDueDeliveries } from './modules/webhooks/delivery.ts';
import { queueDeliveriesSql } from './modules/webhooks/fan-out.ts';
import { runDueJobs, type JobHandler } from './provider/jobs.ts';
import type { ServerProvider } from './provider/types.ts';
import { oneAtATime } from './one-at-a-time.ts';
import { logFailure, type Outages } from './db/outage.ts';
import { outsideClaims } from './db/recovery.ts';
import { outsideDatabaseBudget } from './core/database-budget.ts';

/** How often the background ticker moves the simulated datacenter (provider jobs, renewals, retries). */
const TICK_MS = 1000;

export interface BackgroundDeps {
  config: Config;
  db: Database;
  prisma: PrismaClient;
  clock: Clock;
  log: Logger;
  provider: ServerProvider & { jobHandlers: Record<string, JobHandler> };
  events: EventStream;
  webhookSecretKey: Buffer;
  outages?: Outages;
}

/** One instance's work off the request path, started and stopped as one. */
export interface Background {
  /** Provider jobs, renewals, the relay and due webhook deliveries, now; returns how many provider jobs ran. */
  runDueWork(): Promise<number>;
  /** Starts listening for recorded events, the relay's poll and (with backgroundJobs) the ticker. */
  start(): Promise<void>;
  /** Stops all of it and waits for the runs in flight. */
  stop(): Promise<void>;
}

/**
 * The background work of one instance:
 * - the event relay (outbox → event stream + webhook delivery queue), woken by the
 *   notification recordEvent sends at commit (every instance LISTENs on EVENTS_CHANNEL) and
 *   polling every `config.relayPollMs` as the safety net. It runs whatever backgroundJobs
 *   says: relaying committed events is not clock-driven work;
 * - with backgroundJobs, a ticker every TICK_MS: provider jobs (which record events), then
 *   renewals, the relay and due deliveries, one run at a time (SKIP LOCKED keeps instances apart);
 * - with backgroundJobs, due webhook deliveries as soon as the relay queued some.
 */
export async function createBackground(deps: BackgroundDeps): Promise<Background> {
  const { config, prisma, clock, log } = deps;
  let stopped = false;
  let listening: Listening | undefined;
  let ticker: NodeJS.Timeout | undefined;

  // Due deliveries, one run at a time per instance (a run loops until none is due).
  const sending = oneAtATime(() =>
    sendDueDeliveries({
      prisma,
      now: () => clock.now(),
      log,
      secretKey: deps.webhookSecretKey,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: () => config.webhookAllowPrivate,
    }),
  );
  // Relayed events have deliveries waiting: send them now, not at the next tick. Only the
  // deliveries: provider jobs and renewals keep to the ticker, or each event would cost their
  // queries too.
  const sendRelayed = () => {
    if (stopped) return;
    sending.request().catch((err) => logFailure(deps.outages, log, err, 'webhook deliveries failed'));
  };
  const relay = new Relay(
    { prisma, stream: deps.events, now: () => clock.now(), log, fanOut: queueDeliveriesSql, outages: deps.outages },
    { pollMs: config.relayPollMs, onRelayed: () => config.backgroundJobs && sendRelayed() },
  );
  await relay.init();

  const working = oneAtATime(async () => {
    const jobs = await runDueJobs(prisma, deps.provider.jobHandlers, clock.now());
    await runRenewals(prisma, deps.provider, clock.now());
    await relay.runOnce();
    await sending.run();
    return jobs;
  });
  // A stopped instance must not relay: its subscribers are gone (the events would be lost to them).
  const runDueWork = async () => (stopped ? 0 : working.run());

  return {
    runDueWork,
    async start() {
      listening = await deps.db.listen(EVENTS_CHANNEL, {
        onNotify: () => outsideClaims(() => outsideDatabaseBudget(() => relay.wake())),
        onError: (err) => log.warn({ err: err.message }, 'event listener connection lost; reconnecting'),
      });
      relay.wake(); // what was committed before the listener was
      relay.start();
      if (config.backgroundJobs) {
        ticker = setInterval(
          () => runDueWork().catch((err) => logFailure(deps.outages, log, err, 'background work failed')),
          TICK_MS,
        );
        ticker.unref();
      }
    },
    async stop() {
      stopped = true;
      clearInterval(ticker);
      await listening?.close();
      await working.settled();
      await sending.settled();
      await relay.stop();
    },
  };
}
