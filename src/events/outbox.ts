import type { Prisma } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { API_REVISION } from '../version.ts';
import type { EventPayload, EventType } from './catalog.ts';

type Tx = Pick<Prisma.TransactionClient, 'event'>;

/**
 * Writes an event row inside the caller's transaction (transactional outbox): the state
 * change and its event commit together or not at all. The relay publishes it afterwards.
 */
export async function recordEvent<T extends EventType>(
  tx: Tx,
  accountId: string,
  type: T,
  data: EventPayload<T>,
  now: Date,
): Promise<string> {
  const id = newId(ID_PREFIX.event, now.getTime());
  await tx.event.create({ data: { id, accountId, type, data, apiVersion: API_REVISION, createdAt: now } });
  return id;
}
