import type { Prisma } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { API_REVISION } from '../version.ts';
import type { EventPayload, EventType } from './catalog.ts';

type Tx = Pick<Prisma.TransactionClient, 'event'>;

/** Relays of the instances in this process, nudged when an event is recorded (see relay.ts). */
const recordedListeners = new Set<() => void>();
export function onEventRecorded(listener: () => void): () => void {
  recordedListeners.add(listener);
  return () => recordedListeners.delete(listener);
}

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
  // The relay polls anyway; this only makes a live subscriber see the event sooner.
  for (const listener of recordedListeners) listener();
  return id;
}
