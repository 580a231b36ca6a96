import type { Prisma } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { MAX_ATTEMPTS } from '../modules/webhooks/backoff.ts';
import type { EventEnvelope } from './envelope.ts';

type Tx = Pick<Prisma.TransactionClient, 'webhook' | 'webhookDelivery'>;

/** True when a subscription's `events` list selects this kind (`*` selects all). */
export function subscriptionMatches(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * The webhook dispatcher: one delivery row per relayed event and per matching subscription
 * of the event's account. It runs inside the relay's transaction, so the rows exist exactly
 * when the relay's cursor has moved past the event: a crash before the commit relays the
 * event again, a crash after it finds the rows queued (and the unique (webhookId, eventId)
 * makes a second row impossible either way).
 *
 * Paused subscriptions get their rows too: they wait, and are sent when the subscription is
 * resumed (README: Webhooks, paused subscriptions keep their events).
 */
export async function createDeliveries(tx: Tx, events: EventEnvelope[], now: Date): Promise<number> {
  if (!events.length) return 0;
  const accounts = [...new Set(events.map((e) => e.account))];
  const hooks = await tx.webhook.findMany({ where: { accountId: { in: accounts } }, select: { id: true, accountId: true, events: true } });
  if (!hooks.length) return 0;
  const rows: Prisma.WebhookDeliveryCreateManyInput[] = [];
  for (const event of events) {
    for (const hook of hooks) {
      if (hook.accountId !== event.account || !subscriptionMatches(hook.events, event.type)) continue;
      rows.push({
        id: newId(ID_PREFIX.webhookDelivery, now.getTime()),
        accountId: hook.accountId,
        webhookId: hook.id,
        eventId: event.id,
        eventType: event.type,
        status: 'pending',
        maxAttempts: MAX_ATTEMPTS,
        nextAttemptAt: now,
        createdAt: now,
      });
    }
  }
  if (!rows.length) return 0;
  const { count } = await tx.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
  return count;
}
