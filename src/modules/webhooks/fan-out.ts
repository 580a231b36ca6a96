import { Prisma } from '../../generated/prisma/client.ts';
import { ID_PREFIX, idTimePart, sqlIdRandomPart } from '../../db/ids.ts';
import { MAX_ATTEMPTS } from './backoff.ts';

/**
 * The webhook dispatcher: one delivery row per relayed event and per matching subscription
 * of the event's account (its `events` list holds the event's kind, or `*`).
 *
 * It is a part of the relay's statement (src/events/relay.ts, handed this function by app.ts): `relayed` names that
 * statement's set of the events it numbered (columns `id`, `accountId`, `type`), so the rows
 * exist exactly when the relay's cursor has moved past the event: a crash before the commit
 * relays the event again, a crash after it finds the rows queued (and the unique (webhookId,
 * eventId) makes a second row impossible either way). Delivery ids are made in the statement,
 * in newId's form, with the time of `now`.
 *
 * Paused subscriptions get their rows too: they wait, and are sent when the subscription is
 * resumed (README: Webhooks, paused subscriptions keep their events).
 */
export function queueDeliveriesSql(relayed: string, now: Date): Prisma.Sql {
  const events = Prisma.raw(`"${relayed}"`);
  return Prisma.sql`
    INSERT INTO "WebhookDelivery" ("id", "accountId", "webhookId", "eventId", "eventType", "status", "maxAttempts", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT ${`${ID_PREFIX.webhookDelivery}_${idTimePart(now.getTime())}`} || ${sqlIdRandomPart(Prisma.sql`e."id" || w."id"`)},
           w."accountId", w."id", e."id", e."type", 'pending', ${MAX_ATTEMPTS}, ${now}, ${now}, ${now}
    FROM ${events} e JOIN "Webhook" w ON w."accountId" = e."accountId" AND (e."type" = ANY(w."events") OR '*' = ANY(w."events"))
    ON CONFLICT DO NOTHING`;
}
