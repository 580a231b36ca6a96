import { builder } from '../../schema/builder.ts';
import { Deleted } from '../../schema/deleted.ts';
import { rules } from '../../schema/input-rules.ts';
import { Node } from '../../schema/graph.ts';
import { operation } from '../../schema/operation.ts';
import { listType, pageArgs } from '../../schema/pagination.ts';
import { MAX_ATTEMPTS } from './backoff.ts';
import {
  createWebhook, deleteWebhook, DELIVERY_PAGE_LIMITS, getWebhook, listDeliveries, listWebhooks, redeliver, rotateSecret, updateWebhook,
  type WebhookView, WEBHOOK_RULES,
} from './service.ts';

export const Webhook = builder.objectRef<WebhookView>('Webhook').implement({
  interfaces: [Node],
  description: 'A webhook subscription: events of the chosen kinds are POSTed, signed, to its URL.',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url', { description: 'HTTPS URL that receives deliveries.' }),
    events: t.exposeStringList('events', { description: 'Event kinds, or the single value "*" for all.' }),
    description: t.exposeString('description'),
    isActive: t.exposeBoolean('isActive', { description: 'False pauses (deliveries wait), true resumes.' }),
    secret: t.exposeString('secret', { description: 'Signing secret: in full only from create and rotate-secret, masked (whsec_****abcd) elsewhere.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const WebhookList = listType('WebhookList', Webhook);


interface AttemptView {
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
  manual: boolean;
}

const WebhookDeliveryAttempt = builder.objectRef<AttemptView>('WebhookDeliveryAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    number: t.exposeInt('number'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'HTTP status of the response; null when none came (timeout, refused, DNS).' }),
    error: t.exposeString('error', { nullable: true }),
    succeeded: t.exposeBoolean('succeeded', { description: 'True for a 2xx response within the timeout.' }),
    manual: t.exposeBoolean('manual', { description: 'A redelivery asked for with redeliver.' }),
  }),
});

interface DeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  attempts: AttemptView[];
}

export const WebhookDelivery = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  interfaces: [Node],
  description: 'One event sent to one subscription, with its attempts.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Sent as X-Service-Delivery-Id; the same on every attempt.' }),
    webhookId: t.exposeString('webhookId'),
    eventId: t.exposeString('eventId'),
    eventType: t.exposeString('eventType'),
    status: t.exposeString('status', { description: 'pending, succeeded or failed.' }),
    attemptCount: t.exposeInt('attemptCount'),
    maxAttempts: t.exposeInt('maxAttempts', { description: `Attempts allowed before failed (${MAX_ATTEMPTS}; one more per redeliver).` }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the next attempt is due; null once succeeded or failed.' }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attempts: t.field({ type: [WebhookDeliveryAttempt], resolve: (d) => d.attempts }),
  }),
});

const WebhookDeliveryList = listType('WebhookDeliveryList', WebhookDelivery);

builder.queryField('webhooks', (t) =>
  t.field({
    ...operation({ summary: 'List webhooks', scope: 'webhooks:read', rest: 'GET /webhooks', area: 'webhooks', tool: 'webhooks_list',
      description: 'The webhook subscriptions of the account, newest first, secrets masked. A page of the list envelope; follow nextCursor while hasMore.' }),
    type: WebhookList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listWebhooks(ctx.db, args),
  }),
);

builder.queryField('webhook', (t) =>
  t.field({
    ...operation({ summary: 'Get a webhook', scope: 'webhooks:read', rest: 'GET /webhooks/:id', area: 'webhooks', tool: 'webhook_get',
      description: 'One webhook subscription, its secret masked.' }),
    type: Webhook,
    args: { id: t.arg.id({ required: true, description: 'The webhook subscription id.' }) },
    resolve: (_root, args, ctx) => getWebhook(ctx.db, args.id),
  }),
);

builder.mutationField('webhookCreate', (t) =>
  t.field({
    ...operation({ summary: 'Create a webhook', scope: 'webhooks:write', rest: 'POST /webhooks', area: 'webhooks', tool: 'webhook_create',
      description: 'Subscribe an https URL on a public address to event kinds (or "*" for all). The signing secret is returned in full only here and on rotation. At most 20 subscriptions per account.' }),
    type: Webhook,
    args: {
      url: t.arg.string({ required: true, description: 'HTTPS URL on a public address.', ...rules(WEBHOOK_RULES.url) }),
      events: t.arg.stringList({ required: true, description: 'Event kinds, or ["*"] for all.', ...rules(WEBHOOK_RULES.events) }),
      description: t.arg.string({ required: false, description: 'At most 500 characters.', ...rules(WEBHOOK_RULES.description) }),
    },
    resolve: (_root, args, ctx) => createWebhook(ctx, args),
  }),
);

builder.mutationField('webhookUpdate', (t) =>
  t.field({
    ...operation({ summary: 'Update a webhook', scope: 'webhooks:write', rest: 'PATCH /webhooks/:id', area: 'webhooks', tool: 'webhook_update',
      description: 'Change the URL, event kinds or description of a subscription, or pause (isActive false) and resume it. While paused, its deliveries wait.' }),
    type: Webhook,
    args: {
      id: t.arg.id({ required: true, description: 'The webhook subscription id.' }),
      url: t.arg.string({ required: false, description: 'HTTPS URL on a public address.', ...rules(WEBHOOK_RULES.url) }),
      events: t.arg.stringList({ required: false, description: 'Event kinds, or ["*"] for all; replaces the list.', ...rules(WEBHOOK_RULES.events) }),
      description: t.arg.string({ required: false, description: 'A note for you; at most 500 characters.', ...rules(WEBHOOK_RULES.description) }),
      isActive: t.arg.boolean({ required: false, description: 'false pauses, true resumes.' }),
    },
    resolve: (_root, args, ctx) => updateWebhook(ctx, args.id, args),
  }),
);

builder.mutationField('webhookDelete', (t) =>
  t.field({
    ...operation({ summary: 'Delete a webhook', scope: 'webhooks:write', rest: 'DELETE /webhooks/:id', area: 'webhooks', tool: 'webhook_delete',
      description: 'Delete a subscription, its queued deliveries and its delivery log.' }),
    type: Deleted,
    args: { id: t.arg.id({ required: true, description: 'The webhook subscription id.' }) },
    resolve: (_root, args, ctx) => deleteWebhook(ctx.db, args.id),
  }),
);

builder.mutationField('webhookRotateSecret', (t) =>
  t.field({
    ...operation({ summary: 'Rotate the signing secret', scope: 'webhooks:write', rest: 'POST /webhooks/:id/rotate-secret', area: 'webhooks', tool: 'webhook_rotate_secret', hints: { destructive: true },
      description: 'Replace the signing secret; the new one is returned once and the old one stops signing at once.' }),
    type: Webhook,
    args: { id: t.arg.id({ required: true, description: 'The webhook subscription id.' }) },
    resolve: (_root, args, ctx) => rotateSecret(ctx, args.id),
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    ...operation({ summary: 'List deliveries', scope: 'webhooks:read', rest: 'GET /webhooks/:id/deliveries', area: 'webhooks', tool: 'webhook_deliveries_list',
      description: 'Recent deliveries of a subscription, newest first, with attempts, status codes, durations and the next attempt time.' }),
    type: WebhookDeliveryList,
    args: {
      id: t.arg.id({ required: true, description: 'The webhook subscription id.' }),
      ...pageArgs(t, DELIVERY_PAGE_LIMITS),
    },
    resolve: (_root, args, ctx) => listDeliveries(ctx.db, args.id, args),
  }),
);

builder.mutationField('webhookRedeliver', (t) =>
  t.field({
    ...operation({ summary: 'Redeliver an event', scope: 'webhooks:write', rest: 'POST /webhooks/:id/deliveries/:deliveryId/redeliver', area: 'webhooks', tool: 'webhook_redeliver',
      description: 'Queue another attempt of a past delivery now: same delivery id and body, signed with the current secret.' }),
    type: WebhookDelivery,
    args: { id: t.arg.id({ required: true, description: 'The webhook subscription id.' }), deliveryId: t.arg.id({ required: true, description: 'The delivery id, from the delivery log.' }) },
    resolve: (_root, args, ctx) => redeliver(ctx, args.id, args.deliveryId),
  }),
);
