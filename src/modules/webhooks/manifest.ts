import { defineArea, int, str, strOf } from '../../core/area.ts';

/** Webhook subscriptions and their deliveries (docs/DESIGN.md: Areas declare themselves once). */
export const webhooksArea = defineArea({
  name: 'webhooks',
  api: {
    tag: 'Webhook subscriptions: an https URL receives the account\'s events, signed (see "Webhooks and their signature" above), with a delivery log and redelivery.',
    toolset: { offered: 'by default', order: 7 },
    toolPrefixes: ['webhook', 'webhooks'],
    eventDeliveries: true,
  },
  // Webhook tools beyond the spec's 85 default ones (the test event), offered when asked for.
  toolsets: { 'webhooks-extra': { offered: 'on request', order: 11 } },
  scopes: {
    'webhooks:read': 'Webhook subscriptions and delivery logs',
    'webhooks:write': 'Webhook subscription writes',
  },
  // A delivery records no account event (it follows one); its moves are live changes only: queued
  // again by a redelivery or a test, and each attempt's outcome.
  events: {
    order: 9,
    kinds: {},
    liveChanges: {
      'webhook.delivery.changed': {
        scope: 'webhooks:read',
        fields: { webhookId: str, deliveryId: str, status: strOf('succeeded'), attemptCount: int },
      },
    },
  },
  idPrefixes: { webhook: 'wh', webhookDelivery: 'whd', webhookAttempt: 'wha' },
});
