import { Prisma } from '../../generated/prisma/client.ts';
import { ID_PREFIX, idTimePart, sqlIdRandomPart } from '../../db/ids.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { MAX_ATTEMPTS } from './backoff.ts';

/** The scope that reads each kind, as SQL over the event's type (from the one catalogue). */
const READ_SCOPE = Prisma.sql`CASE e."type" ${Prisma.join(
  Object.entries(EVENT_TYPES).map(([kind, { scope }]) => Prisma.sql`WHEN ${kind} THEN ${scope}`),
  ' ',
)} END`;

/**
 * The webhook dispatcher: one delivery row per relayed event and per matching subscription
 * of the event's account (its `events` list holds the event's kind, or `*`).
 *
 * It is a part of the relay's statement (src/events/relay.ts, handed this function by src/background.ts): `relayed` names that
 * statement's set of the events it numbered (columns `id`, `accountId`, `type`), so the rows
 * exist exactly when the relay's cursor has moved past the event: a crash before the commit
 * relays the event again, a crash after it finds the rows queued (and the unique (webhookId,
 * eventId) makes a second row impossible either way). Delivery ids are made in the statement,
 * in newId's form, with the time of `now`.
 *
 * A subscription is sent only the kinds its owner's scopes can read (`ownerScopes`, recorded
 * from the credential that set it up; `*` on rows from before that was recorded).
 *
 * Paused subscriptions get their rows too: they wait, and are sent when the subscription is
 * resumed (docs/REFERENCE.md: Webhooks, paused subscriptions keep their events).
 */
export function queueDeliveriesSql(relayed: string, now: Date): Prisma.Sql {
  const events = Prisma.raw(`"${relayed}"`);
  return Prisma.sql`
    INSERT INTO "WebhookDelivery" ("id", "accountId", "webhookId", "eventId", "eventType", "status", "maxAttempts", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT ${`${ID_PREFIX.webhookDelivery}_${idTimePart(now.getTime())}`} || ${sqlIdRandomPart(Prisma.sql`e."id" || w."id"`)},
           w."accountId", w."id", e."id", e."type", 'pending', ${MAX_ATTEMPTS}, ${now}, ${now}, ${now}
    FROM ${events} e JOIN "Webhook" w ON w."accountId" = e."accountId" AND (e."type" = ANY(w."events") OR '*' = ANY(w."events"))
      AND ('*' = ANY(w."ownerScopes") OR ${READ_SCOPE} = ANY(w."ownerScopes"))
    ON CONFLICT DO NOTHING`;
}
