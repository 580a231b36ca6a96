import type { Logger } from 'pino';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { TEST_EVENT_TYPE } from './catalog.ts';
import { toEnvelope, type EventRow, type RelayedEvent } from './envelope.ts';
import type { EventStream } from './stream.ts';
import { oneAtATime } from '../one-at-a-time.ts';
import { logFailure, type Outages } from '../db/outage.ts';

const CURSOR = 'outbox';
const RELAY_BATCH = 200;

type Row = EventRow & { relaySeq: bigint };
/** The relay statement's answer: whether it held the cursor on a current snapshot, and the events it numbered (none: one row of nulls). */
type RelayRow = { locked: boolean; current: boolean } & ({ [K in keyof Row]: null } | Row);

/** How far the relay has numbered: every event up to this position is published or being published. */
export async function relayCursorPosition(prisma: Pick<PrismaClient, 'relayCursor'>): Promise<bigint> {
  const row = await prisma.relayCursor.findUnique({ where: { name: CURSOR }, select: { position: true } });
  return row?.position ?? 0n;
}

/**
 * What the relay's statement also does with the events it numbers, in the same statement: a
 * data-modifying CTE over the CTE named `relayed` (columns id, accountId, type). The webhooks
 * module's fan-out (src/modules/webhooks/fan-out.ts) queues their deliveries.
 */
export type RelayFanOut = (relayed: string, now: Date) => Prisma.Sql;

/**
 * The relay: moves committed outbox rows onto the event stream and into the webhook
 * delivery queue.
 *
 * Why not "WHERE seq > cursor": `seq` comes from a sequence taken at INSERT time, so under
 * concurrency a lower seq can commit after a higher one; a cursor on seq would step over the
 * late one and lose it. Instead the relay takes every *committed* row it has not relayed yet
 * (`relaySeq IS NULL`, in seq order) and numbers it with `relaySeq` = cursor + 1, 2, ... in
 * the same statement as the cursor update and the delivery rows. An uncommitted row is
 * invisible, so it is simply picked up by a later run once it commits — nothing can be
 * skipped, and no time window is involved. `relaySeq` is a total order consistent with what
 * the relay published, which is what live subscriptions replay by.
 *
 * The cursor row is locked FOR UPDATE SKIP LOCKED: one relay at a time across all instances
 * (the others skip and try on their next tick). After a crash nothing is lost: rows not yet
 * numbered are relayed by the next run; rows numbered but not yet published to the live
 * stream (a crash between commit and publish) are in the outbox for subscribers to replay,
 * and their deliveries are already queued.
 *
 * All of it is one statement: one round trip instead of seven (BEGIN, five statements,
 * COMMIT), each of which costs the ORM's and the driver's work and, on the embedded database,
 * the API's own thread. One statement reads with the snapshot it started with, though, while the lock
 * may be granted after another relay committed: that snapshot would still show the other
 * relay's events as unnumbered. So the statement also reads the cursor without the lock
 * and goes on only if both reads agree (every run that numbers events moves the cursor
 * forward); if not, it changes nothing and runs again with a new snapshot.
 */
export async function relayBatch(
  prisma: PrismaClient,
  now: Date,
  fanOut: RelayFanOut,
  limit = RELAY_BATCH,
): Promise<RelayedEvent[] | 'busy'> {
  for (;;) {
    const rows = await prisma.$queryRaw<RelayRow[]>`
      WITH seen AS (
        SELECT "position" FROM "RelayCursor" WHERE "name" = ${CURSOR}
      ), locked AS (
        SELECT "position" FROM "RelayCursor" WHERE "name" = ${CURSOR} FOR UPDATE SKIP LOCKED
      ), base AS (
        SELECT l."position" FROM locked l JOIN seen s ON s."position" = l."position"
      ), batch AS (
        SELECT e."seq", b."position" + row_number() OVER (ORDER BY e."seq") AS "relaySeq"
        FROM base b, "Event" e WHERE e."relaySeq" IS NULL AND e."type" <> ${TEST_EVENT_TYPE} ORDER BY e."seq" LIMIT ${limit}
      ), relayed AS (
        UPDATE "Event" e SET "relaySeq" = b."relaySeq"
        FROM batch b WHERE e."seq" = b."seq" AND e."relaySeq" IS NULL
        RETURNING e."id", e."accountId", e."type", e."data", e."apiVersion", e."createdAt", e."relaySeq"
      ), moved AS (
        -- Past every number handed out: an event deleted meanwhile (its account closed) leaves a hole, not a number used twice.
        UPDATE "RelayCursor" SET "position" = (SELECT max("relaySeq") FROM batch), "updatedAt" = ${now}
        WHERE "name" = ${CURSOR} AND EXISTS (SELECT 1 FROM batch)
      ), queued AS (${fanOut('relayed', now)})
      SELECT f."locked", f."current", r."id", r."accountId"::text AS "accountId", r."type", r."data", r."apiVersion", r."createdAt", r."relaySeq"
      FROM (SELECT EXISTS (SELECT 1 FROM locked) AS "locked", EXISTS (SELECT 1 FROM base) AS "current") f
      LEFT JOIN relayed r ON true`;
    const [first] = rows;
    if (!first?.locked) return 'busy';
    if (!first.current) continue;
    const events = rows.filter((r): r is RelayRow & Row => r.id !== null);
    events.sort((a, b) => (BigInt(a.relaySeq) < BigInt(b.relaySeq) ? -1 : 1));
    return events.map((r) => ({
      position: BigInt(r.relaySeq),
      envelope: toEnvelope({ ...r, createdAt: new Date(r.createdAt) }),
    }));
  }
}

/**
 * Runs the relay in one instance: when woken (`wake`: every instance LISTENs for the
 * notification recordEvent sends at commit, see src/background.ts) and on a slow poll, the
 * safety net for a notification lost while the listening connection was down. Runs never
 * overlap within an instance, and wake-ups arriving during a run add exactly one more run.
 */
export class Relay {
  private readonly runs = oneAtATime(() => this.drain());
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      stream: EventStream;
      now: () => Date;
      log: Logger;
      fanOut: RelayFanOut;
      outages?: Outages;
    },
    private readonly opts: { pollMs: number; onRelayed?: (events: RelayedEvent[]) => void },
  ) {}

  /** Creates the cursor row if missing (first start). */
  async init(): Promise<void> {
    await this.deps.prisma.relayCursor.createMany({ data: [{ name: CURSOR, position: 0n }], skipDuplicates: true });
    const max = await this.deps.prisma.event.aggregate({ _max: { relaySeq: true } });
    // A restored or hand-edited database could leave the cursor behind the numbers in use.
    if (max._max.relaySeq !== null) {
      await this.deps.prisma.relayCursor.updateMany({
        where: { name: CURSOR, position: { lt: max._max.relaySeq } },
        data: { position: max._max.relaySeq },
      });
    }
  }

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.runOnce()
        .catch((err) => logFailure(this.deps.outages, this.deps.log, err, 'event relay failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.opts.pollMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.opts.pollMs).unref();
  }

  /** Asks for a run that starts from now on (events were committed); a run already waiting covers it. */
  wake(): void {
    if (this.stopped) return;
    this.runs.request().catch((err) => logFailure(this.deps.outages, this.deps.log, err, 'event relay failed'));
  }

  /** Relays everything committed so far; returns how many events it relayed. */
  async runOnce(): Promise<number> {
    if (this.stopped) return 0;
    return this.runs.run();
  }

  private async drain(): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const events = await relayBatch(this.deps.prisma, this.deps.now(), this.deps.fanOut);
      if (events === 'busy' || !events.length) return total;
      total += events.length;
      try {
        await this.deps.stream.publish(events);
      } catch (err) {
        // Subscribers replay from the outbox; webhook deliveries are already queued.
        if (this.deps.outages?.redis) this.deps.outages.redis.failed(err);
        else this.deps.log.warn({ err }, 'event stream publish failed');
      }
      this.opts.onRelayed?.(events);
      if (events.length < RELAY_BATCH) return total;
    }
    return total;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.runs.settled();
  }
}
