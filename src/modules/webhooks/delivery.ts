import type { Logger } from 'pino';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { toEnvelope } from '../../events/envelope.ts';
import { announceChangeSql } from '../../events/live-changes.ts';
import { API_REVISION } from '../../version.ts';
import { retryDelaySeconds } from './backoff.ts';
import { postWebhook, type PostResult } from '../../egress/http.ts';
import { decryptSecret, signatureHeader } from './secrets.ts';

/** A delivery is pending until an attempt succeeds or the last one fails. */
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;

export interface DeliveryDeps {
  prisma: PrismaClient;
  now: () => Date;
  log: Logger;
  secretKey: Buffer;
  timeoutMs: number;
  allowPrivate: () => boolean;
}

/** Due deliveries claimed per round, and HTTP requests in flight at once per instance. */
const CLAIM_BATCH = 200;
const CONCURRENCY = 48;

interface Claimed {
  id: string;
  accountId: string;
  attemptCount: number;
  maxAttempts: number;
  manual: boolean;
  url: string;
  secretEnc: string;
  webhookId: string;
  event: { id: string; accountId: string; type: string; data: unknown; apiVersion: string; createdAt: Date };
}

/**
 * The delivery worker: sends every due delivery, as a durable queue in the delivery table.
 *
 * 1. Claim (one statement): due rows of active subscriptions, FOR UPDATE SKIP LOCKED, so
 *    instances sharing the database never take the same row; the claim counts the attempt
 *    and moves `nextAttemptAt` to a lease (timeout + 30 s). No lock is held over the HTTP call.
 * 2. POST, outside any transaction.
 * 3. Record (one statement per batch of outcomes), only if the row is still the one claimed (same attempt
 *    number): success → succeeded; failure → next attempt after the backoff, or failed after
 *    the last attempt.
 *
 * A crash between 1 and 3 leaves the row pending with its lease as `nextAttemptAt`: the
 * attempt is retried when the lease runs out, with the same delivery id. That is the only
 * way a receiver sees a delivery twice (at-least-once delivery).
 */
export async function sendDueDeliveries(deps: DeliveryDeps): Promise<number> {
  let sent = 0;
  // One recorder for the whole run: the next claim does not wait for the last outcomes to be
  // written (claimed rows are leased, so they cannot be claimed twice meanwhile).
  const recorder = new Recorder(deps);
  for (;;) {
    const claimed = await claim(deps);
    if (!claimed.length) {
      await recorder.drain();
      return sent;
    }
    const queue = [...claimed];
    const secrets = secretsOfBatch(deps.secretKey);
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) {
          recorder.add(await attempt(deps, d, secrets));
          sent++;
        }
      }),
    );
    // A short claim took everything due: no second claim to find nothing. What is relayed
    // meanwhile wakes another run, and retries falling due are the ticker's.
    if (claimed.length < CLAIM_BATCH) {
      await recorder.drain();
      return sent;
    }
  }
}

/**
 * Claims due deliveries in one statement (no interactive transaction: on the embedded database
 * each one costs a round of the API's own thread): lock due rows of active subscriptions
 * (SKIP LOCKED), count the attempt and lease them, and return them with their event and URL.
 */
async function claim(deps: DeliveryDeps): Promise<Claimed[]> {
  const now = deps.now();
  const lease = new Date(now.getTime() + deps.timeoutMs + 30_000);
  // `id = ANY(ARRAY(…))` here and in `record` hands the planner the keys themselves: joined only
  // on `id`, it read the whole table (or every pending row) to hash-join 200 rows against it,
  // a cost that grew with the queue (PGlite, 10,000 pending: 17 → 10 ms per outcome batch).
  const rows = await deps.prisma.$queryRaw<
    (Omit<Claimed, 'event'> & {
      eventId: string;
      eventAccountId: string;
      type: string;
      data: unknown;
      apiVersion: string;
      createdAt: Date;
    })[]
  >`
    WITH due AS (
      SELECT d."id", d."manualPending" FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now} AND w."isActive"
      ORDER BY d."nextAttemptAt", d."id" LIMIT ${CLAIM_BATCH} FOR UPDATE OF d SKIP LOCKED
    ), claimed AS (
      UPDATE "WebhookDelivery" d
      SET "attemptCount" = d."attemptCount" + 1, "nextAttemptAt" = ${lease}, "manualPending" = false, "updatedAt" = ${now}
      FROM due WHERE d."id" = due."id" AND d."id" = ANY(ARRAY(SELECT "id" FROM due))
      RETURNING d."id", d."accountId", d."attemptCount", d."maxAttempts", d."webhookId", d."eventId", due."manualPending"
    )
    SELECT c."id", c."accountId"::text AS "accountId", c."attemptCount", c."maxAttempts", c."webhookId", c."manualPending" AS "manual",
           w."url", w."secretEnc", e."id" AS "eventId", e."accountId"::text AS "eventAccountId", e."type", e."data", e."apiVersion", e."createdAt"
    FROM claimed c JOIN "Webhook" w ON w."id" = c."webhookId" JOIN "Event" e ON e."id" = c."eventId"`;
  return rows.map(({ eventId, eventAccountId, type, data, apiVersion, createdAt, ...d }) => ({
    ...d,
    event: { id: eventId, accountId: eventAccountId, type, data, apiVersion, createdAt: new Date(createdAt) },
  }));
}

interface Outcome {
  d: Claimed;
  ok: boolean;
  result: PostResult;
  error: string | null;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * Each subscription's signing secret, decrypted once per claimed batch (a batch is mostly a
 * few subscriptions' deliveries; decrypting per delivery was 2.6 % of the worker's CPU).
 * Kept for the batch only, not for the life of the process.
 */
function secretsOfBatch(key: Buffer): (d: Claimed) => string {
  const secrets = new Map<string, string>();
  return (d) => {
    const cacheKey = `${d.webhookId} ${d.secretEnc}`;
    let secret = secrets.get(cacheKey);
    if (secret === undefined) {
      secret = decryptSecret(key, d.webhookId, d.secretEnc);
      secrets.set(cacheKey, secret);
    }
    return secret;
  };
}

/** One HTTP attempt of a claimed delivery (no database work). */
async function attempt(deps: DeliveryDeps, d: Claimed, secretOf: (d: Claimed) => string): Promise<Outcome> {
  const startedAt = deps.now();
  const body = JSON.stringify(toEnvelope(d.event));
  let result: PostResult;
  try {
    const secret = secretOf(d);
    // The signature's timestamp is real (wall-clock) time: receivers compare it with their own
    // clock to refuse replays, and the simulated clock may be ahead of theirs.
    const t = Math.floor(Date.now() / 1000);
    result = await postWebhook(
      d.url,
      body,
      {
        'Content-Type': 'application/json',
        'User-Agent': `cloud-account-api-webhooks/${API_REVISION}`,
        'X-Service-Signature': signatureHeader(secret, body, t),
        'X-Service-Event-Id': d.event.id,
        'X-Service-Event-Type': d.event.type,
        'X-Service-Delivery-Id': d.id,
        'X-Service-Delivery-Attempt': String(d.attemptCount),
      },
      { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate() },
    );
  } catch (err) {
    deps.log.error({ err, deliveryId: d.id }, 'webhook delivery could not be prepared');
    result = { statusCode: null, error: 'internal error preparing the delivery', durationMs: 0 };
  }
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  deps.log.info(
    {
      deliveryId: d.id,
      eventId: d.event.id,
      attempt: d.attemptCount,
      status: result.statusCode,
      ok,
      ms: result.durationMs,
    },
    'webhook delivery attempt',
  );
  return {
    d,
    ok,
    result,
    error: ok ? null : (result.error ?? `HTTP ${result.statusCode}`),
    startedAt,
    finishedAt: deps.now(),
  };
}

/** Outcomes written per statement at most, and how long the first of a batch waits for company. */
const RECORD_BATCH = 100;
const RECORD_WAIT_MS = 10;

/**
 * Records attempt outcomes many per statement: an outcome waits up to RECORD_WAIT_MS for
 * others (or until RECORD_BATCH have gathered), and while one write runs the next outcomes
 * gather. Waiting matters on the embedded database, whose writes run in this thread and so
 * finish before the next response is even read: without it every outcome was its own statement.
 */
class Recorder {
  private pending: Outcome[] = [];
  private writing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: DeliveryDeps) {}

  add(outcome: Outcome): void {
    this.pending.push(outcome);
    if (this.pending.length >= RECORD_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RECORD_WAIT_MS);
  }

  async drain(): Promise<void> {
    for (this.flush(); this.writing; this.flush()) await this.writing;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || !this.pending.length) return;
    this.writing = this.loop().finally(() => {
      this.writing = undefined;
      // Outcomes that came in as the last write finished.
      if (this.pending.length) this.flush();
    });
  }

  private async loop(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0, RECORD_BATCH);
      await record(this.deps, batch).catch((err) =>
        this.deps.log.error(
          { err, deliveries: batch.map((o) => o.d.id) },
          'webhook delivery outcomes failed to record',
        ),
      );
    }
  }
}

/**
 * Writes a batch of outcomes in one SQL statement: each delivery row is updated only if it is
 * still the one claimed (same attempt number, still pending) — success → succeeded; failure
 * → next attempt after the backoff, or failed after the last attempt — and an attempt row is
 * added for exactly the rows updated. A row re-queued meanwhile (redeliver) or deleted is left
 * alone. One statement per batch instead of two per delivery is what lets a worker keep up
 * with bursts. Each delivery updated is announced as a live change (`webhook.delivery.changed`)
 * when the statement commits: an open delivery log shows the outcome at once.
 */
async function record(deps: DeliveryDeps, outcomes: Outcome[]): Promise<void> {
  const rows = outcomes.map((o) => {
    const last = o.d.attemptCount >= o.d.maxAttempts;
    return {
      id: o.d.id,
      attempt: o.d.attemptCount,
      status: o.ok ? 'succeeded' : last ? 'failed' : 'pending',
      next:
        o.ok || last
          ? null
          : new Date(o.finishedAt.getTime() + retryDelaySeconds(o.d.attemptCount) * 1000).toISOString(),
      code: o.result.statusCode,
      err: o.error,
      started: o.startedAt.toISOString(),
      duration: o.result.durationMs,
      ok: o.ok,
      manual: o.d.manual,
      attempt_id: newId(ID_PREFIX.webhookAttempt, o.startedAt.getTime()),
      account: o.d.accountId,
    };
  });
  const now = deps.now();
  const announced = announceChangeSql(
    'webhook.delivery.changed',
    Prisma.sql`u."accountId"`,
    Prisma.sql`jsonb_build_object('webhookId', u."webhookId", 'deliveryId', u."id", 'status', u."status", 'attemptCount', u."attemptCount")`,
    now,
  );
  await deps.prisma.$executeRaw`
    WITH v AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
        id text, attempt int, status text, next timestamptz, code int, err text, started timestamptz,
        duration int, ok boolean, manual boolean, attempt_id text, account uuid)
    ), updated AS (
      UPDATE "WebhookDelivery" AS d
      SET "status" = v.status, "nextAttemptAt" = v.next, "lastStatusCode" = v.code, "lastError" = v.err,
          "lastAttemptAt" = v.started, "updatedAt" = ${now}
      FROM v WHERE d."id" = v.id AND d."id" = ANY(ARRAY(SELECT id FROM v)) AND d."attemptCount" = v.attempt AND d."status" = 'pending'
      RETURNING d."id", d."accountId", d."webhookId", d."status", d."attemptCount"
    ), attempts AS (
      INSERT INTO "WebhookDeliveryAttempt" ("id", "accountId", "deliveryId", "number", "startedAt", "durationMs", "statusCode", "error", "succeeded", "manual")
      SELECT v.attempt_id, v.account, v.id, v.attempt, v.started, v.duration, v.code, v.err, v.ok, v.manual
      FROM v JOIN updated u ON u."id" = v.id
    )
    SELECT ${announced} FROM updated u`;
}
