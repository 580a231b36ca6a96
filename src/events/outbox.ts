import type { Prisma } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { API_REVISION } from '../version.ts';
import type { EventPayload, EventType } from './catalog.ts';

type Tx = Pick<Prisma.TransactionClient, '$executeRaw'>;

/**
 * The channel recordEvent notifies and every instance's relay listens on (src/background.ts).
 * PostgreSQL delivers a notification only to sessions of the database it was sent in, so the
 * name needs no per-database part.
 */
export const EVENTS_CHANNEL = 'svc_events';

/**
 * Writes an event row inside the caller's transaction (transactional outbox): the state
 * change and its event commit together or not at all. The relay publishes it afterwards.
 *
 * The same statement notifies EVENTS_CHANNEL. PostgreSQL delivers the notification when the
 * transaction commits (never if it rolls back, and once for a transaction's identical
 * notifications), to every instance listening on the database: their relays run as soon as
 * the event is visible to them.
 */
export async function recordEvent<T extends EventType>(
  tx: Tx,
  accountId: string,
  type: T,
  data: EventPayload<T>,
  now: Date,
): Promise<string> {
  const id = newId(ID_PREFIX.event, now.getTime());
  await tx.$executeRaw`
    WITH recorded AS (
      INSERT INTO "Event" ("id", "accountId", "type", "data", "apiVersion", "createdAt")
      VALUES (${id}, ${accountId}::uuid, ${type}, ${JSON.stringify(data)}::jsonb, ${API_REVISION}, ${now})
      RETURNING 1
    )
    SELECT pg_notify(${EVENTS_CHANNEL}, '') FROM recorded`;
  return id;
}
