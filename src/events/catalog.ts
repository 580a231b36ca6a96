import type { Scope } from '../scopes.ts';

/**
 * The event kinds of the spec: payload fields and the scope a reader needs to see one.
 * Webhook subscriptions, GraphQL subscriptions and docs read this; emitters are typed by it.
 */
export const EVENT_TYPES = {
  'server.created': { scope: 'servers:read', fields: ['serverId', 'status', 'label'] },
  'server.power.changed': { scope: 'servers:read', fields: ['serverId', 'action'] },
  'server.resized': { scope: 'servers:read', fields: ['serverId', 'productId', 'vcpu', 'ramMb'] },
  'server.reinstalled': { scope: 'servers:read', fields: ['serverId', 'os', 'osTemplate'] },
  'server.ptr.changed': { scope: 'servers:read', fields: ['serverId', 'ip', 'ptr'] },
  'server.terminated': { scope: 'servers:read', fields: ['serverId'] },
  'server.suspended': { scope: 'servers:read', fields: ['serverId', 'reason'] },
  'hosting.created': { scope: 'hosting:read', fields: ['hostingId', 'domain', 'status'] },
  'invoice.created': { scope: 'billing:read', fields: ['invoiceId', 'invoiceNumber', 'status', 'totalUsdCents', 'currency'] },
  'invoice.paid': { scope: 'billing:read', fields: ['invoiceId', 'invoiceNumber', 'totalUsdCents', 'currency'] },
  'wallet.deposit.received': { scope: 'billing:read', fields: ['amountUsdCents', 'gateway', 'transactionId'] },
  'domain.registered': { scope: 'domains:read', fields: ['domainId', 'domain', 'periodYears', 'expiresAt'] },
  'ticket.created': { scope: 'tickets:read', fields: ['ticketId', 'ticketNumber', 'subject', 'status', 'priority'] },
  'ticket.replied': { scope: 'tickets:read', fields: ['ticketId', 'ticketNumber', 'subject', 'status'] },
} as const satisfies Record<string, { scope: Scope; fields: readonly string[] }>;

export type EventType = keyof typeof EVENT_TYPES;
type FieldsOf<T extends EventType> = (typeof EVENT_TYPES)[T]['fields'][number];
/** A payload with exactly the spec's fields for that kind. */
export type EventPayload<T extends EventType> = { [K in FieldsOf<T>]: string | number | boolean | null };
