import type { ArgBuilder } from '@pothos/core';
import { badRequest } from '../errors.ts';
import { builder, type Types } from './builder.ts';
import { rules, type InputRules } from './input-rules.ts';

/** List limits (README: Pagination): newest first, keyset cursors on ids that grow with time. */
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

export interface PageLimits {
  max: number;
  fallback: number;
}
const PAGE_LIMITS: PageLimits = { max: PAGE_MAX, fallback: PAGE_DEFAULT };

/** `limit` and `cursor` arguments, shared by every cursor-paginated list. */
export const pageArgs = (t: { arg: ArgBuilder<Types> }, limits = PAGE_LIMITS) => ({
  limit: t.arg.int({ required: false, description: `Items per page, 1 to ${limits.max} (default ${limits.fallback}).`, ...rules(limitRules(limits.max)) }),
  cursor: t.arg.string({ required: false, description: 'nextCursor of the previous page.' }),
});

const limitRules = (max: number): InputRules => ({ minimum: 1, maximum: max });

type Find<T, K> = (q: { take: number; where: { id?: { lt: K } }; orderBy: { id: 'desc' } }) => Promise<T[]>;

/**
 * Runs a keyset-paginated findMany on a model with time-ordered ids, newest first.
 * Asks for one row more than the page to know whether another page follows.
 */
async function keysetPage<T extends { id: K }, K extends string | number>(limit: number, after: K | undefined, find: Find<T, K>): Promise<Page<T>> {
  const rows = await find({ take: limit + 1, where: after === undefined ? {} : { id: { lt: after } }, orderBy: { id: 'desc' } });
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? String(data[data.length - 1].id) : null };
}

/** A page of a model whose ids are `<prefix>_<time><random>` strings; a list may have its own limits. */
export function paginate<T extends { id: string }>(args: PageArgs, find: Find<T, string>, limits = PAGE_LIMITS): Promise<Page<T>> {
  return keysetPage(args.limit ?? limits.fallback, args.cursor ?? undefined, find);
}

const INT4_MAX = 2_147_483_647;

/** A page of a model with autoincrement integer ids (mail): the cursor is the id as text. */
export function paginateIntIds<T extends { id: number }>(args: PageArgs, find: Find<T, number>): Promise<Page<T>> {
  const limit = args.limit ?? PAGE_DEFAULT;
  const cursor = args.cursor ?? undefined;
  if (cursor === undefined) return keysetPage(limit, undefined, find);
  const after = /^[1-9][0-9]{0,9}$/.test(cursor) ? Number(cursor) : NaN;
  if (!(after <= INT4_MAX)) throw badRequest('cursor must be the nextCursor of a previous page.', 'cursor');
  return keysetPage(limit, after, find);
}

/**
 * A list bounded by nature (a server's snapshots or addresses, a plan's options…), answered
 * whole in the same envelope as a paged list, so every list reads the same way.
 */
export function wholeList<T>(data: T[]): Page<T> {
  return { data, hasMore: false, nextCursor: null };
}

/** The list envelope `{ data, hasMore, nextCursor }` for an item type. */
export function listType<T extends object>(name: string, item: any) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      data: t.field({ type: [item], description: 'The items of this page.', resolve: (p) => p.data as any }),
      hasMore: t.exposeBoolean('hasMore', { description: 'True when another page follows.' }),
      nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as cursor for the next page; null on the last.' }),
    }),
  });
}

