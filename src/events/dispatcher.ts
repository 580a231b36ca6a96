import type { Prisma } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { MAX_ATTEMPTS } from '../modules/webhooks/backoff.ts';
import type { EventEnvelope } from './envelope.ts';

type Tx = Pick<Prisma.TransactionClient, 'webhook' | '$executeRaw'>;

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
  const rows: { id: string; account: string; webhook: string; event: string; type: string }[] = [];
  for (const event of events) {
    for (const hook of hooks) {
      if (hook.accountId !== event.account || !subscriptionMatches(hook.events, event.type)) continue;
      rows.push({ id: newId(ID_PREFIX.webhookDelivery, now.getTime()), account: hook.accountId, webhook: hook.id, event: event.id, type: event.type });
    }
  }
  if (!rows.length) return 0;
  // One parameter for the whole batch: through the ORM's createMany each row's nine values were
  // bound (and planned) one by one, ~0.4 ms of CPU per row, more than sending the delivery.
  return tx.$executeRaw`
    INSERT INTO "WebhookDelivery" ("id", "accountId", "webhookId", "eventId", "eventType", "status", "maxAttempts", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT r.id, r.account, r.webhook, r.event, r.type, 'pending', ${MAX_ATTEMPTS}, ${now}, ${now}, now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id text, account uuid, webhook text, event text, type text)
    ON CONFLICT DO NOTHING`;
}
