import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { PAGE_LIMITS, pageSizeSchema } from '../core/paging.ts';
import type { Types } from './builder.ts';
import { connectionType } from './graph.ts';
import { inputSchema } from './input-schemas.ts';

// The Pothos bindings of paged lists; the paging itself (limits, keyset pages, cursor checks)
// is src/core/paging.ts, which services use without loading Pothos.

/**
 * `first` and `after` arguments of a paged root list: REST calls them `limit` and `cursor`
 * (the spec's names), with the same bounds, checked before anything runs.
 */
export const pageArgs = (t: { arg: ArgBuilder<Types> }, limits = PAGE_LIMITS) => ({
  first: t.arg.int({
    required: false,
    restName: 'limit',
    description: `Items per page, 1 to ${limits.max} (default ${limits.fallback}).`,
    ...inputSchema(pageSizeSchema(limits.max)),
  }),
  after: t.arg.string({
    required: false,
    restName: 'cursor',
    description: 'endCursor of the previous page.',
    restDescription: 'nextCursor of the previous page.',
  }),
});

/**
 * The list of an item type: its connection (graph.ts), which REST shows as the envelope
 * `{ data, hasMore, nextCursor }` named `<Item>List`. A resolver may answer a service's page
 * (a whole list among them) as it is.
 */
export function listConnection<T extends object>(item: ObjectRef<Types, T>) {
  return connectionType<T>(item.name, item as ObjectRef<Types, unknown>);
}
