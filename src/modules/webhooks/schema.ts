import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { values } from '../../schema/examples.ts';
import { Deleted } from '../../schema/deleted.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, pagedList, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, destroys } from '../../schema/operation.ts';
import { listConnection, pageArgs } from '../../schema/pagination.ts';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../events/catalog.ts';
import { MAX_ATTEMPTS } from './backoff.ts';
import { DELIVERY_STATES } from './delivery.ts';
import { sendTestEvent, WEBHOOK_PAUSED } from './test-event.ts';
import {
  createWebhook,
  deleteWebhook,
  DELIVERY_PAGE_LIMITS,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateSecret,
  updateWebhook,
  type WebhookView,
  WEBHOOK_RULES,
  webhooksByIds,
  deliveriesByIds,
} from './service.ts';
import { webhooksArea } from './manifest.ts';

const op = operationsOf(webhooksArea);

export const Webhook = builder.node(builder.objectRef<WebhookView>('Webhook'), {
  ...loadedNode('Webhook', {
    prefix: 'wh',
    scope: 'webhooks:read',
    id: { description: 'The subscription id (wh_…).' },
    load: (ctx, ids) => webhooksByIds(ctx.db, ids),
  }),
  description: 'A webhook subscription: events of the chosen kinds are POSTed, signed, to its URL.',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'HTTPS URL that receives deliveries.' }),
    events: t.exposeStringList('events', { description: 'Event kinds, or the single value "*" for all.' }),
    description: t.exposeString('description', {
      description: 'Your note on it, at most 500 characters ("" when none).',
    }),
    isActive: t.exposeBoolean('isActive', { description: 'False pauses (deliveries wait), true resumes.' }),
    secret: t.exposeString('secret', {
      description: 'Signing secret: in full only from create and rotate-secret, masked (whsec_****abcd) elsewhere.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

const WebhookConnection = listConnection(Webhook);

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
    number: t.exposeInt('number', { description: 'Attempt number, from 1.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the request was sent.' }),
    durationMs: t.exposeInt('durationMs', { description: 'Time until the response or the failure, in milliseconds.' }),
    statusCode: t.exposeInt('statusCode', {
      nullable: true,
      description: 'HTTP status of the response; null when none came (timeout, refused, DNS).',
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why it failed (an HTTP status or a network error); null when it succeeded.',
    }),
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

export const WebhookDelivery = builder.node(builder.objectRef<DeliveryView>('WebhookDelivery'), {
  ...loadedNode('WebhookDelivery', {
    prefix: 'whd',
    scope: 'webhooks:read',
    id: { description: 'Sent as X-Service-Delivery-Id; the same on every attempt.' },
    load: (ctx, ids) => deliveriesByIds(ctx.db, ids),
  }),
  description: 'One event sent to one subscription, with its attempts.',
  fields: (t) => ({
    webhookId: t.exposeString('webhookId', { description: 'The subscription.' }),
    eventId: t.exposeString('eventId', { description: 'The event sent (evt_…).' }),
    eventType: t.exposeString('eventType', {
      ...values([...Object.keys(EVENT_TYPES), TEST_EVENT_TYPE], 'server.power.changed'),
      description: `The event kind (\`${TEST_EVENT_TYPE}\` for a test event sent with webhookTest).`,
    }),
    status: t.exposeString('status', {
      ...values(DELIVERY_STATES, 'succeeded'),
      description: 'pending, succeeded or failed.',
    }),
    attemptCount: t.exposeInt('attemptCount', { description: 'Attempts made so far.' }),
    maxAttempts: t.exposeInt('maxAttempts', {
      description: `Attempts allowed before failed (${MAX_ATTEMPTS}; one more per redeliver).`,
    }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once succeeded or failed.',
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', {
      nullable: true,
      description: 'HTTP status of the last attempt; null before the first or when no response came.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'Why the last attempt failed; null when it succeeded or before the first.',
    }),
    lastAttemptAt: t.expose('lastAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the last attempt was made; null before the first.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When the event was queued for this subscription.',
    }),
    attempts: t.field({
      type: [WebhookDeliveryAttempt],
      description: 'Every attempt, oldest first.',
      resolve: (d) => d.attempts,
    }),
  }),
});

const WebhookDeliveryConnection = listConnection(WebhookDelivery);

pagedListQuery({
  name: 'webhooks',
  type: WebhookConnection,
  list: (ctx, args) => listWebhooks(ctx.db, args),
  operation: op({
    summary: 'List webhooks',
    scope: 'webhooks:read',
    rest: 'GET /webhooks',
    toolVerb: 'list',
    description: 'The webhook subscriptions of the account, newest first, secrets masked.',
  }),
});

idOperation({
  root: 'query',
  name: 'webhook',
  type: Webhook,
  idDescription: 'The webhook subscription id.',
  run: (ctx, id) => getWebhook(ctx.db, id),
  operation: op({
    summary: 'Get a webhook',
    scope: 'webhooks:read',
    rest: 'GET /webhooks/:id',
    toolVerb: 'get',
    description: 'One webhook subscription, its secret masked.',
  }),
});

builder.mutationField('webhookCreate', (t) =>
  t.field({
    ...op({
      summary: 'Create a webhook',
      scope: 'webhooks:write',
      rest: 'POST /webhooks',
      description:
        'Subscribe an https URL on a public address to event kinds (or "*" for all). Only kinds the calling credential can read (each kind\'s read scope; 403 otherwise): a subscription is sent only what its creator could read, "*" included. The signing secret is returned in full only here and on rotation. At most 20 subscriptions per account.',
    }),
    type: Webhook,
    args: {
      url: t.arg.string({
        required: true,
        description: 'HTTPS URL on a public address.',
        ...inputSchema(WEBHOOK_RULES.url),
      }),
      events: t.arg.stringList({
        required: true,
        description: 'Event kinds, or ["*"] for all.',
        ...inputSchema(WEBHOOK_RULES.events),
      }),
      description: t.arg.string({
        required: false,
        description: 'At most 500 characters.',
        ...inputSchema(WEBHOOK_RULES.description),
      }),
    },
    resolve: (_root, args, ctx) => createWebhook(ctx, args),
  }),
);

builder.mutationField('webhookUpdate', (t) =>
  t.field({
    ...op({
      summary: 'Update a webhook',
      scope: 'webhooks:write',
      rest: 'PATCH /webhooks/:id',
      description:
        'Change the URL, event kinds or description of a subscription, or pause (isActive false) and resume it. While paused, its deliveries wait. A change of URL or events makes the subscription send only what the calling credential can read.',
    }),
    type: Webhook,
    args: {
      id: t.arg.id({ required: true, description: 'The webhook subscription id.' }),
      url: t.arg.string({
        required: false,
        description: 'HTTPS URL on a public address.',
        ...inputSchema(WEBHOOK_RULES.url),
      }),
      events: t.arg.stringList({
        required: false,
        description: 'Event kinds, or ["*"] for all; replaces the list.',
        ...inputSchema(WEBHOOK_RULES.events),
      }),
      description: t.arg.string({
        required: false,
        description: 'A note for you; at most 500 characters.',
        ...inputSchema(WEBHOOK_RULES.description),
      }),
      isActive: t.arg.boolean({ required: false, description: 'false pauses, true resumes.' }),
    },
    resolve: (_root, args, ctx) => updateWebhook(ctx, args.id, args),
  }),
);

idOperation({
  root: 'mutation',
  name: 'webhookDelete',
  type: Deleted,
  idDescription: 'The webhook subscription id.',
  run: (ctx, id) => deleteWebhook(ctx.db, id),
  operation: op({
    summary: 'Delete a webhook',
    scope: 'webhooks:write',
    rest: 'DELETE /webhooks/:id',
    consequence: destroys('Delete webhook subscription {id} with its queued deliveries and delivery log.'),
    description: 'Delete a subscription, its queued deliveries and its delivery log.',
  }),
});

idOperation({
  root: 'mutation',
  name: 'webhookRotateSecret',
  type: Webhook,
  idDescription: 'The webhook subscription id.',
  run: rotateSecret,
  operation: op({
    summary: 'Rotate the signing secret',
    scope: 'webhooks:write',
    rest: 'POST /webhooks/:id/rotate-secret',
    consequence: destroys(
      'Rotate the signing secret of webhook {id}: the current secret stops signing at once, and receivers reject deliveries until they have the new one.',
    ),
    description: 'Replace the signing secret; the new one is returned once and the old one stops signing at once.',
  }),
});

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    ...op({
      summary: 'List deliveries',
      scope: 'webhooks:read',
      rest: 'GET /webhooks/:id/deliveries',
      toolVerb: 'list',
      description:
        'Recent deliveries of a subscription, newest first, with attempts, status codes, durations and the next attempt time.',
    }),
    type: WebhookDeliveryConnection,
    args: {
      id: t.arg.id({ required: true, description: 'The webhook subscription id.' }),
      ...pageArgs(t, DELIVERY_PAGE_LIMITS),
    },
    resolve: (_root, args, ctx, info) => pagedList(args, info, (page) => listDeliveries(ctx.db, args.id, page)),
  }),
);

builder.mutationField('webhookRedeliver', (t) =>
  t.field({
    ...op({
      summary: 'Redeliver an event',
      scope: 'webhooks:write',
      rest: 'POST /webhooks/:id/deliveries/:deliveryId/redeliver',
      description:
        'Queue another attempt of a past delivery now: same delivery id and body, signed with the current secret.',
    }),
    type: WebhookDelivery,
    args: {
      id: t.arg.id({ required: true, description: 'The webhook subscription id.' }),
      deliveryId: t.arg.id({ required: true, description: 'The delivery id, from the delivery log.' }),
    },
    resolve: (_root, args, ctx) => redeliver(ctx, args.id, args.deliveryId),
  }),
);

// A test event (API 1.16): in the `webhooks-extra` MCP toolset, offered on request, so the
// default tools stay the spec's (the webhooks manifest declares it).
builder.mutationField('webhookTest', (t) =>
  t.field({
    ...op({
      summary: 'Send a test event',
      scope: 'webhooks:write',
      rest: 'POST /webhooks/:id/test',
      toolset: 'webhooks-extra',
      refuses: [WEBHOOK_PAUSED],
      description: `Send a test event (\`${TEST_EVENT_TYPE}\`, data { webhookId }) to this subscription now, whatever its event kinds, signed like any delivery. It is not an account event: no other subscription, live stream or event history gets it. Answers the queued delivery; it shows in the delivery log, is retried on failure and can be redelivered. A paused subscription answers 409.`,
    }),
    type: WebhookDelivery,
    args: { id: t.arg.id({ required: true, description: 'The webhook subscription id.' }) },
    resolve: (_root, args, ctx) => sendTestEvent(ctx, args.id),
  }),
);
