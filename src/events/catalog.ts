import type { Scope } from '../scopes.ts';

/** The JSON type of a payload field: what the webhook documentation declares and emitters are typed by. */
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
/** A string field whose example (the document's) must be of its kind: a new server's status is provisioning. */
const strOf = (example: string) => ({ type: 'string', examples: [example] }) as const;

/**
 * The event kinds of the spec: payload fields with their JSON types, and the scope a reader
 * needs to see one. Webhook subscriptions, GraphQL subscriptions, the OpenAPI `webhooks`
 * section and docs read this; emitters are typed by it.
 */
export const EVENT_TYPES = {
  'server.created': { scope: 'servers:read', fields: { serverId: str, status: strOf('provisioning'), label: str } },
  'server.power.changed': { scope: 'servers:read', fields: { serverId: str, action: str } },
  'server.resized': { scope: 'servers:read', fields: { serverId: str, productId: str, vcpu: int, ramMb: int } },
  'server.reinstalled': { scope: 'servers:read', fields: { serverId: str, os: str, osTemplate: str } },
  'server.ptr.changed': { scope: 'servers:read', fields: { serverId: str, ip: str, ptr: nullableStr } },
  'server.terminated': { scope: 'servers:read', fields: { serverId: str } },
  'server.suspended': { scope: 'servers:read', fields: { serverId: str, reason: str } },
  'hosting.created': { scope: 'hosting:read', fields: { hostingId: str, domain: str, status: strOf('provisioning') } },
  'invoice.created': {
    scope: 'billing:read',
    fields: { invoiceId: str, invoiceNumber: str, status: strOf('open'), totalUsdCents: int, currency: str },
  },
  'invoice.paid': {
    scope: 'billing:read',
    fields: { invoiceId: str, invoiceNumber: str, totalUsdCents: int, currency: str },
  },
  'wallet.deposit.received': {
    scope: 'billing:read',
    fields: { amountUsdCents: int, gateway: str, transactionId: str },
  },
  'domain.registered': {
    scope: 'domains:read',
    fields: { domainId: str, domain: str, periodYears: int, expiresAt: time },
  },
  'ticket.created': {
    scope: 'tickets:read',
    fields: { ticketId: str, ticketNumber: strOf('TKT-100042'), subject: str, status: strOf('open'), priority: str },
  },
  'ticket.replied': {
    scope: 'tickets:read',
    fields: { ticketId: str, ticketNumber: strOf('TKT-100042'), subject: str, status: strOf('answered') },
  },
} as const satisfies Record<
  string,
  {
    scope: Scope;
    fields: Record<string, { type: string | readonly string[]; format?: string; examples?: readonly string[] }>;
  }
>;

export type EventType = keyof typeof EVENT_TYPES;
type Fields<T extends EventType> = (typeof EVENT_TYPES)[T]['fields'];
type JsonOf<S> = S extends { type: 'integer' }
  ? number
  : S extends { type: 'string' }
    ? string
    : S extends { type: readonly ['string', 'null'] }
      ? string | null
      : never;
/** A payload with exactly the spec's fields for that kind, each of its declared type. */
export type EventPayload<T extends EventType> = { [K in keyof Fields<T>]: JsonOf<Fields<T>[K]> };
