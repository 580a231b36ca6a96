import type { ArgBuilder } from '@pothos/core';
import { cursorToOffset, offsetToCursor, resolveArrayConnection, resolveOffsetConnection } from '@pothos/plugin-relay';
import { PAGE_MAX, pageSizeSchema } from '../core/paging.ts';
import { badRequest } from '../errors.ts';
import type { Types } from './builder.ts';
import type { Connection } from './graph.ts';
import { inputSchema } from './input-schemas.ts';
import { GRAPH_ONLY } from './node-kinds.ts';

// Connections paged by position (plugin-relay's offset connections: its cursors, its PageInfo),
// for lists that are not keyset pages: a list a service answers whole (a server's snapshots, a
// pool's addresses…), and the invoices, which REST pages by number. Their paging arguments are
// GraphQL's own (REST answers such a list whole, or by `page`/`limit`: rest-view.ts).

export interface OffsetArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** Spread into a GraphQL-only argument: REST, OpenAPI and MCP leave it out (rest-view.ts). */
const graphArg = (declared: ReturnType<typeof inputSchema>) => ({
  ...declared,
  extensions: { ...declared.extensions, ...GRAPH_ONLY },
});

/**
 * `first`/`after` and `last`/`before` of an offset connection, GraphQL-only. `first` says how
 * many items a page holds when neither is given (`fallback`).
 */
export const offsetConnectionArgs = (t: { arg: ArgBuilder<Types> }, fallback: string, max = PAGE_MAX) => ({
  first: t.arg.int({
    required: false,
    description: `Items from the start (or from after), 1 to ${max} (default ${fallback}).`,
    ...graphArg(inputSchema(pageSizeSchema(max))),
  }),
  after: t.arg.string({
    required: false,
    description: 'endCursor of the previous page.',
    extensions: GRAPH_ONLY,
  }),
  last: t.arg.int({
    required: false,
    description: `Items from the end (or from before), 1 to ${max}: pages back.`,
    ...graphArg(inputSchema(pageSizeSchema(max))),
  }),
  before: t.arg.string({
    required: false,
    description: 'startCursor of the following page, to page back.',
    extensions: GRAPH_ONLY,
  }),
});

/**
 * `after` and `before` checked to be cursors an offset connection issues (plugin-relay's
 * `OffsetConnection:<n>`): anything else is refused naming the argument (docs/REFERENCE.md:
 * Pagination), where plugin-relay would read some page or throw an error with no code.
 */
function checkOffsetCursors(args: OffsetArgs): void {
  for (const [name, issued] of [
    ['after', 'endCursor'],
    ['before', 'startCursor'],
  ] as const) {
    const cursor = args[name];
    if (cursor == null) continue;
    let offset = Number.NaN;
    try {
      offset = cursorToOffset(cursor);
    } catch {
      // Not base64, or not an offset cursor: refused below.
    }
    if (!Number.isSafeInteger(offset) || offset < -1 || offsetToCursor(offset) !== cursor)
      throw badRequest(`${name} must be the ${issued} of a previous page.`, name);
  }
}

/**
 * A list its service answers whole (bounded by nature), as plugin-relay's array connection:
 * the whole list when neither `first` nor `last` is given, as REST answers it.
 */
export function wholeListConnection<T>(args: OffsetArgs, nodes: readonly T[]): Connection<T> {
  checkOffsetCursors(args);
  const connection = resolveArrayConnection(
    { args, defaultSize: nodes.length, maxSize: Math.max(nodes.length, PAGE_MAX) },
    nodes,
  );
  return connection as unknown as Connection<T>;
}

/** A page of rows from `offset`, at most `limit`, and how many the whole list holds. */
export interface OffsetRange<T> {
  rows: T[];
  total: number;
}

/**
 * A list read by position (`read(offset, limit)`, with its total) as plugin-relay's offset
 * connection, counted in `totalCount`. A `page` number (REST's, from 1) starts the page after
 * (page − 1) × first items; it does not combine with after, before or last. `count` gives the
 * total first when the page is asked from the end (`last` without `before`).
 */
export async function offsetConnection<T>(
  args: OffsetArgs & { page?: number | null },
  sizes: { defaultSize: number; maxSize: number },
  read: (offset: number, limit: number) => Promise<OffsetRange<T>>,
  count: () => Promise<number>,
): Promise<Connection<T>> {
  checkOffsetCursors(args);
  const { page, ...paging } = args;
  if (page != null) {
    const other = (['after', 'before', 'last'] as const).find((name) => args[name] != null);
    if (other) throw badRequest(`page cannot be combined with ${other}.`, 'page');
    if (page > 1) paging.after = offsetToCursor((page - 1) * (args.first ?? sizes.defaultSize) - 1);
  }
  const fromEnd = paging.last != null && paging.before == null && paging.first == null;
  let total = fromEnd ? await count() : undefined;
  const connection = await resolveOffsetConnection(
    { args: paging, ...sizes, totalCount: total },
    async ({ offset, limit }) => {
      const range = await read(offset, limit);
      total = range.total;
      return range.rows;
    },
  );
  return { ...(connection as unknown as Connection<T>), totalCount: total };
}
