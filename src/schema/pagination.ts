import type { ArgBuilder } from '@pothos/core';
import { badRequest } from '../errors.ts';
import { builder, type Types } from './builder.ts';

/** List limits (README: Pagination): newest first, keyset cursors on time-ordered ids. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 1000;

export interface PageArgs {
  limit?: number | null;
  cursor?: string | null;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `limit` and `cursor` arguments, shared by every cursor-paginated list. */
export const pageArgs = (t: { arg: ArgBuilder<Types> }) => ({
  limit: t.arg.int({ required: false, description: `Items per page, 1 to ${PAGE_MAX} (default ${PAGE_DEFAULT}).` }),
  cursor: t.arg.string({ required: false, description: 'nextCursor of the previous page.' }),
});

export function checkLimit(limit: number | null | undefined, max = PAGE_MAX, fallback = PAGE_DEFAULT): number {
  if (limit === null || limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest(`limit must be an integer from 1 to ${max}.`, 'limit');
  return limit;
}

/**
 * Runs a keyset-paginated findMany on a model with time-ordered ids, newest first.
 * Asks for one row more than the page to know whether another page follows.
 */
export async function paginate<T extends { id: string }>(
  args: PageArgs,
  find: (q: { take: number; where: object; orderBy: { id: 'desc' } }) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = checkLimit(args.limit);
  const rows = await find({ take: limit + 1, where: args.cursor ? { id: { lt: args.cursor } } : {}, orderBy: { id: 'desc' } });
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1].id : null };
}

/** The list envelope `{ data, hasMore, nextCursor }` for an item type. */
export function listType<T extends object>(name: string, item: any) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      data: t.field({ type: [item], resolve: (p) => p.data as any }),
      hasMore: t.exposeBoolean('hasMore'),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
  });
}
