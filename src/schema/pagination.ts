import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { PAGE_LIMITS, type Page } from '../core/paging.ts';
import { builder, type Types } from './builder.ts';
import type { InputRules } from '../core/input-rules.ts';
import { rules } from './input-rules.ts';

// The Pothos bindings of paged lists; the paging itself (limits, keyset pages, cursor checks)
// is src/core/paging.ts, which services use without loading Pothos.

/** `limit` and `cursor` arguments, shared by every cursor-paginated list. */
export const pageArgs = (t: { arg: ArgBuilder<Types> }, limits = PAGE_LIMITS) => ({
  limit: t.arg.int({
    required: false,
    description: `Items per page, 1 to ${limits.max} (default ${limits.fallback}).`,
    ...rules(limitRules(limits.max)),
  }),
  cursor: t.arg.string({ required: false, description: 'nextCursor of the previous page.' }),
});

const limitRules = (max: number): InputRules => ({ minimum: 1, maximum: max });

/** The list envelope `{ data, hasMore, nextCursor }` for an item type. */
export function listType<T extends object>(name: string, item: ObjectRef<Types, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      data: t.field({ type: [item], description: 'The items of this page.', resolve: (p) => p.data }),
      hasMore: t.exposeBoolean('hasMore', { description: 'True when another page follows.' }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'Pass as cursor for the next page; null on the last.',
      }),
    }),
  });
}
