import type { EventType } from './catalog.ts';

/**
 * The one event envelope, identical in a webhook delivery body and in a GraphQL
 * subscription (docs/REFERENCE.md: Events):
 *
 *   { "id": "evt_...", "type": "server.power.changed", "created": "2026-11-21T06:15:31.000Z",
 *     "account": "<account uuid>", "apiVersion": "1.16", "data": { ...the spec's payload fields } }
 *
 * `created` is when the change happened (ISO 8601 UTC, simulated clock); `apiVersion` is the
 * interface revision the payload was written in; `data` holds exactly the spec's fields for `type`.
 */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created: string;
  account: string;
  apiVersion: string;
  data: Record<string, unknown>;
}

/** An envelope with its place in the relay's total order (internal; never sent to clients). */
export interface RelayedEvent {
  position: bigint;
  envelope: EventEnvelope;
}

export interface EventRow {
  id: string;
  accountId: string;
  type: string;
  data: unknown;
  apiVersion: string;
  createdAt: Date;
}

/** Builds the envelope from an outbox row. Key order is fixed, so the JSON is byte-identical on every retry. */
export function toEnvelope(row: EventRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type as EventType,
    created: row.createdAt.toISOString(),
    account: row.accountId,
    apiVersion: row.apiVersion,
    data: row.data as Record<string, unknown>,
  };
}
