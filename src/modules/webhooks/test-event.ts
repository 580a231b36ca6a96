import { ID_PREFIX, newId } from '../../db/ids.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { notFound, refusal } from '../../errors.ts';
import { TEST_EVENT_TYPE } from '../../events/catalog.ts';
import { announceChange } from '../../events/live-changes.ts';
import { API_REVISION } from '../../version.ts';
import { MAX_ATTEMPTS } from './backoff.ts';
import { DELIVERY_SELECT, type WebhookContext } from './service.ts';

/** A test event is for checking an endpoint now: a paused subscription would only hold it. */
export const WEBHOOK_PAUSED = refusal(409, 'The webhook is paused; resume it to send a test event');

/**
 * Queues a test event (`webhook.test`) to one subscription, whatever its event kinds: an event row
 * of its own and one delivery, in one transaction. It is not an account event: the relay never
 * takes it (src/events/relay.ts), so no other subscription, no live stream and no event history
 * sees it. From then on it is an ordinary delivery: signed with the current secret, retried on
 * failure, in the delivery log, and redeliverable.
 */
export async function sendTestEvent(ctx: WebhookContext, webhookId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const hook = await tx.webhook.findFirst({ where: { id: webhookId }, select: { id: true, isActive: true } });
    if (!hook) throw notFound('Webhook');
    if (!hook.isActive) throw WEBHOOK_PAUSED.error('The webhook is paused; resume it to send a test event.');
    // accountId: the tenant client sets it.
    const row: Omit<Prisma.EventUncheckedCreateInput, 'accountId'> = {
      id: newId(ID_PREFIX.event, now.getTime()),
      type: TEST_EVENT_TYPE,
      data: { webhookId },
      apiVersion: API_REVISION,
      createdAt: now,
    };
    const event = await tx.event.create({
      data: row as Prisma.EventUncheckedCreateInput,
      select: { id: true },
    });
    const delivery = await tx.webhookDelivery.create({
      data: {
        id: newId(ID_PREFIX.webhookDelivery, now.getTime()),
        webhookId,
        eventId: event.id,
        eventType: TEST_EVENT_TYPE,
        status: 'pending',
        maxAttempts: MAX_ATTEMPTS,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      } as Prisma.WebhookDeliveryUncheckedCreateInput,
      select: { ...DELIVERY_SELECT, accountId: true },
    });
    const { accountId, ...answer } = delivery;
    // No account event precedes a test delivery: open delivery logs hear of it this way.
    const change = { webhookId, deliveryId: delivery.id, status: delivery.status, attemptCount: 0 };
    await announceChange(tx, accountId, 'webhook.delivery.changed', change, now);
    return answer;
  });
}
