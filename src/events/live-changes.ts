import { EventEmitter } from 'node:events';
import { Prisma } from '../generated/prisma/client.ts';
import type { LiveChangePayload, LiveChangeType } from './catalog.ts';

type Tx = Pick<Prisma.TransactionClient, '$executeRaw'>;

/**
 * The channel live changes travel on: PostgreSQL delivers a notification when its transaction
 * commits (never for a rolled-back one), to every instance listening on the database, so each
 * instance's subscribers hear of a change whichever instance made it, with or without Redis.
 */
export const LIVE_CHANGES_CHANNEL = 'svc_live_changes';
/** What pg_stat_activity shows for each instance's listening connection. */
export const LIVE_CHANGES_LISTENER_NAME = 'svc-live-changes-listener';

/**
 * A live change as subscribers receive it (docs/REFERENCE.md: Live changes): a state move that no
 * account event reports, told to open pages and kept nowhere.
 */
export interface LiveChange {
  type: LiveChangeType;
  created: string;
  account: string;
  data: Record<string, unknown>;
}

/**
 * Announces a live change in the caller's transaction: the notification goes out when the change
 * commits, and to no one if it rolls back. Nothing is written: no event row, no webhook.
 */
export async function announceChange<T extends LiveChangeType>(
  tx: Tx,
  accountId: string,
  type: T,
  data: LiveChangePayload<T>,
  now: Date,
): Promise<void> {
  const change: LiveChange = { type, created: now.toISOString(), account: accountId, data };
  await tx.$executeRaw`SELECT pg_notify(${LIVE_CHANGES_CHANNEL}, ${JSON.stringify(change)})`;
}

/**
 * The same announcement as a SQL expression, for a statement that moves many rows at once (the
 * webhook sender's): `data` is a `jsonb_build_object(…)` of exactly the kind's payload fields
 * over the statement's rows and `accountId` an expression of them. Select it once per row.
 */
export function announceChangeSql(
  type: LiveChangeType,
  accountId: Prisma.Sql,
  data: Prisma.Sql,
  now: Date,
): Prisma.Sql {
  return Prisma.sql`pg_notify(${LIVE_CHANGES_CHANNEL}, jsonb_build_object(
    'type', ${type}::text, 'created', ${now.toISOString()}::text, 'account', (${accountId})::text, 'data', ${data})::text)`;
}

/**
 * This instance's live changes, as its listening connection hears them (src/app.ts listens):
 * the `liveChanges` subscriptions attach here. A notification that is not a change is dropped.
 */
export class LiveChangeStream {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  /** A notification's payload from LIVE_CHANGES_CHANNEL. */
  received(payload: string): void {
    let change: LiveChange;
    try {
      change = JSON.parse(payload) as LiveChange;
    } catch {
      return;
    }
    if (typeof change?.type !== 'string' || typeof change.account !== 'string') return;
    this.emitter.emit('change', change);
  }

  /** Calls `listener` for every change heard from now on; returns the unsubscribe function. */
  subscribe(listener: (change: LiveChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** How many subscribers listen now (a page counts once it has subscribed, not when its socket opened). */
  listenerCount(): number {
    return this.emitter.listenerCount('change');
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}
