import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  connectionAfter,
  connectionArgs,
  connectionsByParent,
  connectionType,
  edge,
  LOADER_OPTIONS,
  pageSize,
} from '../../schema/graph.ts';
import { Webhook, WebhookDelivery } from './schema.ts';
import { deliveriesOfWebhooks, listWebhooks, webhooksByIds } from './service.ts';

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
  t.loadable({
    ...edge('webhooks:read'),
    type: WebhookDeliveryConnection,
    description: 'Recent deliveries, newest first.',
    args: connectionArgs(t),
    // One loader per place in the query (its arguments are that place's): one statement per level.
    byPath: true,
    loaderOptions: LOADER_OPTIONS,
    resolve: (w) => w.id,
    load: async (ids: string[], ctx, args) => {
      const first = pageSize(args);
      const rows = await deliveriesOfWebhooks(ctx.db, ids, connectionAfter(args, 'whd'));
      return connectionsByParent(ids, rows, first, (d) => d.webhookId, args.after);
    },
  }),
);

builder.objectField(WebhookDelivery, 'webhook', (t) =>
  t.loadable({
    ...edge('webhooks:read'),
    type: Webhook,
    description: 'The subscription it was made for.',
    loaderOptions: LOADER_OPTIONS,
    // Rows in any order, matched to the ids by id; null where not visible.
    sort: (w) => w.id,
    resolve: (d) => d.webhookId,
    load: (ids, ctx) => webhooksByIds(ctx.db, ids),
  }),
);
