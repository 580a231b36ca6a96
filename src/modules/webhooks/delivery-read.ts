import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import type { WebhookDelivery, WebhookDeliveryAttempt } from '../../generated/prisma/client.ts';

// A page of a subscription's delivery log with each delivery's attempts (GET
// /v1/webhooks/:id/deliveries) as one hand-written statement, as the server reads do
// (servers/server-reads.ts): the subscription's lookup, the page and the attempts were three
// Prisma statements before. The rows are what Prisma's findMany with DELIVERY_SELECT returns;
// test/webhooks/delivery-read.test.ts holds them equal.

/** `$2` the subscription, `$3` the cursor (deliveries older than it) or null, `$4` rows; `found` is false when the account has no such subscription. */
const DELIVERY_PAGE = tenantStatement(`
  SELECT
    EXISTS (SELECT 1 FROM "Webhook" w WHERE w.id = $2 AND w."accountId" = $1::uuid) AS found,
    COALESCE((
      SELECT json_agg(row_to_json(v) ORDER BY v.id DESC)
      FROM (
        SELECT d.id, d."webhookId", d."eventId", d."eventType", d.status, d."attemptCount", d."maxAttempts",
          d."nextAttemptAt", d."lastStatusCode", d."lastError", d."lastAttemptAt", d."createdAt",
          COALESCE((
            SELECT json_agg(json_build_object('number', a.number, 'startedAt', a."startedAt", 'durationMs', a."durationMs",
              'statusCode', a."statusCode", 'error', a.error, 'succeeded', a.succeeded, 'manual', a.manual) ORDER BY a.number ASC)
            FROM "WebhookDeliveryAttempt" a WHERE a."deliveryId" = d.id AND a."accountId" = $1::uuid
          ), '[]') AS attempts
        FROM "WebhookDelivery" d
        WHERE d."accountId" = $1::uuid AND d."webhookId" = $2 AND ($3::text IS NULL OR d.id < $3::text)
        ORDER BY d.id DESC
        LIMIT $4::int
      ) v
    ), '[]') AS deliveries`);

type Attempt = Pick<
  WebhookDeliveryAttempt,
  'number' | 'startedAt' | 'durationMs' | 'statusCode' | 'error' | 'succeeded' | 'manual'
>;
export type DeliveryRow = Omit<WebhookDelivery, 'accountId' | 'manualPending' | 'updatedAt'> & { attempts: Attempt[] };

/**
 * Up to `take` deliveries of subscription `webhookId` older than `before` (all when null), newest
 * first, with their attempts in order; null when the account has no such subscription.
 */
export async function readDeliveryPage(
  db: TenantDb,
  webhookId: string,
  before: string | null,
  take: number,
): Promise<DeliveryRow[] | null> {
  const [row] = await tenantRows<{ found: boolean; deliveries: Record<string, unknown>[] }>(
    db,
    DELIVERY_PAGE,
    webhookId,
    before,
    take,
  );
  return row.found ? row.deliveries.map((d) => asModelRow<DeliveryRow>('WebhookDelivery', d)) : null;
}
