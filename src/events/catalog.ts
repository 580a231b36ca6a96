import { AREAS, type EventKinds, type LiveChangeKinds } from '../modules/areas.ts';

/**
 * The event kinds of the spec: payload fields with their JSON types, and the scope a reader
 * needs to see one. Each area declares the kinds it records in its manifest
 * (src/modules/<area>/manifest.ts, data only, so this layer may read it); this is their union,
 * in the order the manifests give (`events.order`). Webhook subscriptions, GraphQL
 * subscriptions, the OpenAPI `webhooks` section and docs read it; emitters are typed by it.
 */
export const EVENT_TYPES: EventKinds = Object.assign(
  {},
  ...AREAS.flatMap((a) => ('events' in a ? [a.events] : []))
    .sort((x, y) => x.order - y.order)
    .map((e) => e.kinds),
);

export type EventType = keyof typeof EVENT_TYPES;

/**
 * The live-change kinds (src/core/area.ts: `events.liveChanges`): state moves that no account
 * event reports, announced to open pages as they commit and kept nowhere. Not account events:
 * no webhook subscription, history or OpenAPI `webhooks` entry names them. Their union, from
 * the same manifests as EVENT_TYPES.
 */
export const LIVE_CHANGE_TYPES: LiveChangeKinds = Object.assign(
  {},
  ...AREAS.flatMap((a) => ('events' in a && 'liveChanges' in a.events ? [a.events.liveChanges] : [])),
);
export type LiveChangeType = keyof typeof LIVE_CHANGE_TYPES;

type Fields<T extends EventType> = (typeof EVENT_TYPES)[T]['fields'];
type JsonOf<S> = S extends { type: 'integer' }
  ? number
  : S extends { type: 'string' }
    ? string
    : S extends { type: readonly ['string', 'null'] }
      ? string | null
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'array'; items: { type: 'string' } }
          ? string[]
          : never;
/** A payload with exactly the spec's fields for that kind, each of its declared type. */
export type EventPayload<T extends EventType> = { [K in keyof Fields<T>]: JsonOf<Fields<T>[K]> };
type ChangeFields<T extends LiveChangeType> = (typeof LIVE_CHANGE_TYPES)[T]['fields'];
/** A live change's payload: exactly its declared fields, each of its declared type. */
export type LiveChangePayload<T extends LiveChangeType> = { [K in keyof ChangeFields<T>]: JsonOf<ChangeFields<T>[K]> };

/**
 * The kind of a webhook's test event (webhookTest): not an account event, so not in EVENT_TYPES —
 * no subscription can choose it and no event history, live stream or graph read shows it. The
 * relay never takes it: its one delivery is queued with it (src/modules/webhooks/test-event.ts).
 */
export const TEST_EVENT_TYPE = 'webhook.test';
