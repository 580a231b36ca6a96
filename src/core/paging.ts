import { badRequest } from '../errors.ts';
import { ID_ALPHABET } from './ids.ts';
import { z } from 'zod';

// The paging primitives services use (docs/REFERENCE.md: Pagination), free of Pothos: the list's
// GraphQL arguments and envelope type are bound in src/schema/pagination.ts.

/** List limits: newest first, keyset cursors on ids that grow with time. */
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
export const PAGE_LIMITS: PageLimits = { max: PAGE_MAX, fallback: PAGE_DEFAULT };

/**
 * The bounds of a page size, as the input schema every paged argument declares (REST's
 * `limit`, GraphQL's `first` on root lists and on edges alike): checked in one place, before
 * the field runs, each refusal naming the argument as its surface calls it.
 */
export const pageSizeSchema = (max = PAGE_MAX) => z.number().min(1).max(max);

type Find<T, K> = (q: { take: number; where: { id?: { lt: K } }; orderBy: { id: 'desc' } }) => Promise<T[]>;

/**
 * Runs a keyset-paginated findMany on a model with time-ordered ids, newest first.
 * Asks for one row more than the page to know whether another page follows.
 */
async function keysetPage<T extends { id: K }, K extends string | number>(
  limit: number,
  after: K | undefined,
  find: Find<T, K>,
): Promise<Page<T>> {
  const rows = await find({
    take: limit + 1,
    where: after === undefined ? {} : { id: { lt: after } },
    orderBy: { id: 'desc' },
  });
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? String(data[data.length - 1].id) : null };
}

// newId's shape after the prefix: 10 time + 16 random characters of the id alphabet.
const ID_TAIL = new RegExp(`^[${ID_ALPHABET}]{26}$`);
const INT4_MAX = 2_147_483_647;

/**
 * A cursor checked to be one this list issues: an id of its kind (`prefix`), or for mail's
 * integer ids (`'int'`) a positive int4 as text. Anything else would compare as text and answer
 * some page (page one for `zzz`), which looks like success (docs/REFERENCE.md: Pagination). GraphQL
 * connections name theirs `after` and issue it as `endCursor`.
 */
export function checkCursor(cursor: string, kind: string, param: 'cursor' | 'after' = 'cursor'): string | number {
  if (kind === 'int') {
    const n = /^[1-9][0-9]{0,9}$/.test(cursor) ? Number(cursor) : NaN;
    if (n <= INT4_MAX) return n;
  } else if (cursor.startsWith(`${kind}_`) && ID_TAIL.test(cursor.slice(kind.length + 1))) {
    return cursor;
  }
  throw badRequest(
    param === 'cursor'
      ? 'cursor must be the nextCursor of a previous page.'
      : 'after must be the endCursor of a previous page.',
    param,
  );
}

/** A page of a model whose ids are `<prefix>_<time><random>` strings; a list may have its own limits. */
export function paginate<T extends { id: string }>(
  args: PageArgs,
  prefix: string,
  find: Find<T, string>,
  limits = PAGE_LIMITS,
): Promise<Page<T>> {
  const after = args.cursor == null ? undefined : (checkCursor(args.cursor, prefix) as string);
  return keysetPage(args.limit ?? limits.fallback, after, find);
}

/** A page of a model with autoincrement integer ids (mail): the cursor is the id as text. */
export function paginateIntIds<T extends { id: number }>(args: PageArgs, find: Find<T, number>): Promise<Page<T>> {
  const after = args.cursor == null ? undefined : (checkCursor(args.cursor, 'int') as number);
  return keysetPage(args.limit ?? PAGE_DEFAULT, after, find);
}

/** Groups rows by a key, each group in the rows' order; keys with no row get an empty list. */
export function groupBy<T, K>(keys: readonly K[], rows: T[], keyOf: (row: T) => K): T[][] {
  const groups = new Map<K, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k)!);
}
