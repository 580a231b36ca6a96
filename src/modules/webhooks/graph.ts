import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  batchedConnection,
  batchedOne,
  connectionAfter,
  connectionArgs,
  connectionType,
  edge,
  nodeKind,
} from '../../schema/graph.ts';
import { Webhook, WebhookDelivery } from './schema.ts';
import { deliveriesByIds, deliveriesOfWebhooks, listWebhooks, webhooksByIds } from './service.ts';

// Webhooks in the graph: Account.webhooks → deliveries → back to the subscription.

const WebhookDeliveryConnection = connectionType('WebhookDelivery', WebhookDelivery);

accountListEdge(
  'webhooks',
  'webhooks:read',
  Webhook,
  'Webhook subscriptions (secrets masked), newest first.',
  (ctx, page) => listWebhooks(ctx.db, page),
);

builder.objectField(Webhook, 'deliveries', (t) =>
  t.field({
    ...edge('webhooks:read'),
    type: WebhookDeliveryConnection,
    description: 'Recent deliveries, newest first.',
    args: connectionArgs(t),
    resolve: (w, args, ctx) =>
      batchedConnection(
        ctx,
        'Webhook.deliveries',
        w.id,
        { ...args, after: connectionAfter(args, 'whd') },
        (ids, after) => deliveriesOfWebhooks(ctx.db, ids, after),
        (d) => d.webhookId,
      ),
  }),
);

builder.objectField(WebhookDelivery, 'webhook', (t) =>
  t.field({
    ...edge('webhooks:read'),
    type: Webhook,
    description: 'The subscription it was made for.',
    resolve: (d, _args, ctx) => batchedOne(ctx, 'Webhook', d.webhookId, (ids) => webhooksByIds(ctx.db, ids)),
  }),
);

nodeKind({ prefix: 'wh', typename: 'Webhook', scope: 'webhooks:read', load: (ctx, ids) => webhooksByIds(ctx.db, ids) });
nodeKind({
  prefix: 'whd',
  typename: 'WebhookDelivery',
  scope: 'webhooks:read',
  load: (ctx, ids) => deliveriesByIds(ctx.db, ids),
});
