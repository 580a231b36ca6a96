import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { ApiError, badRequest } from '../errors.ts';
import { inputSchema } from './input-schemas.ts';
import type { Scope } from '../scopes.ts';
import { builder, type Types } from './builder.ts';
import { GRAPH_ONLY } from './node-kinds.ts';
import type { RequestContext } from './context.ts';
import { checkCursor, groupBy, PAGE_MAX, pageSizeSchema, type Page, type PageArgs } from '../core/paging.ts';

/**
 * The connected graph (docs/REFERENCE.md: The graph): global object identification (Node, node,
 * nodes) and cursor connections and edges, from plugin-relay (builder.ts `relay`; the kinds and
 * the global-id encoding are node-kinds.ts). Edges are GraphQL-only: every field or type declared
 * here carries `graphOnly` (or `graphEdge`) in its extensions, and the REST view of the schema
 * (rest-view.ts), from which sofa, OpenAPI and MCP build their documents, leaves them out.
 */

export { GRAPH_ONLY, LOADER_OPTIONS, requestLoader } from './node-kinds.ts';

/** Page size of a nested connection when `first` is not given. */
export const CONNECTION_DEFAULT = 50;

// ------------------------------------------------------------------ scopes on edges

/**
 * Spread into an edge field: it needs the scope of what it reaches, and is nullable, so a
 * credential without that scope gets a FORBIDDEN error at that path and the rest of the data.
 * `graphEdge` keeps it out of REST and lets the scope matrix find every edge.
 */
export function edge(scope: Scope) {
  return {
    authScopes: { [scope]: true } as Record<Scope, boolean>,
    nullable: true as const,
    extensions: { graphEdge: { scope } },
  };
}

// ------------------------------------------------------------------ connections

// The keyset pages come from the services (one statement per level): the helpers below shape
// them as plugin-relay's connection results. Lists that are not keyset pages (answered whole,
// or paged by number) are plugin-relay's offset connections (offset-connections.ts).

/** What a `<Name>Connection` resolves from: plugin-relay's connection shape, and the count. */
export interface Connection<T> {
  edges: { node: T; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Counted only when the client asks for totalCount. */
  count?: () => Promise<number>;
  /** The count plugin-relay's array and offset connections carry (offset-connections.ts). */
  totalCount?: number;
}

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

/** A page of nodes (cursor = the node's id) as a connection; `after` given means a page precedes it. */
function connectionOfNodes<T>(
  nodes: T[],
  hasNextPage: boolean,
  count?: () => Promise<number>,
  after?: string | null,
): Connection<T> {
  const edges = nodes.map((node) => ({ node, cursor: String((node as { id?: unknown }).id) }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: after != null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    count,
  };
}

/** A connection's page size: `first` (its bounds are the argument's declared rule, `connectionArgs`) or CONNECTION_DEFAULT. */
export function pageSize(args: ConnectionArgs): number {
  return args.first ?? CONNECTION_DEFAULT;
}

/** A connection from rows fetched one beyond the page (newest first, cursor = the row's id). */
export function connectionOf<T extends { id: string | number }>(
  rows: T[],
  first: number,
  count?: () => Promise<number>,
  after?: string | null,
): Connection<T> {
  return connectionOfNodes(rows.length > first ? rows.slice(0, first) : rows, rows.length > first, count, after);
}

/** `after` checked to be an endCursor this connection issues (docs/REFERENCE.md: Pagination): an id of kind `kind` (or `'int'`). */
export function connectionAfter(args: ConnectionArgs, kind: string): string | null {
  return args.after == null ? null : String(checkCursor(args.after, kind, 'after'));
}

/**
 * A service's list page read for a connection: the service refuses a bad `cursor`, which in
 * GraphQL is `after`. Run as an operation's REST projection (`rest`), the refusal keeps REST's words.
 */
export async function pageForConnection<T>(read: Promise<Page<T>>, rest = false): Promise<Page<T>> {
  try {
    return await read;
  } catch (e) {
    if (!rest && e instanceof ApiError && e.extensions.field === 'cursor')
      throw badRequest('after must be the endCursor of a previous page.', 'after');
    throw e;
  }
}

/** A connection from a service's list page (`{ data, hasMore, nextCursor }`). */
export function connectionOfPage<T extends { id: string | number }>(
  page: { data: T[]; hasMore: boolean },
  count?: () => Promise<number>,
  after?: string | null,
): Connection<T> {
  return connectionOfNodes(page.data, page.hasMore, count, after);
}

/** `first`/`after` arguments of a connection field. */
export const connectionArgs = (t: { arg: ArgBuilder<Types> }) => ({
  first: t.arg.int({
    required: false,
    description: `Items per page, 1 to ${PAGE_MAX} (default ${CONNECTION_DEFAULT}).`,
    ...inputSchema(pageSizeSchema()),
  }),
  after: t.arg.string({ required: false, description: 'endCursor of the previous page.' }),
});

const connections = new Map<string, ObjectRef<Types, Connection<unknown>>>();

/**
 * The `<Name>Connection` and `<Name>Edge` types of a node type (plugin-relay's connectionObject),
 * made once per node type: every list of it, at the root or under a parent, is this connection.
 * A root list's REST body is its `<Name>List` envelope (`restList`; the REST schema,
 * rest-view.ts, and the projection, rest-projection.ts, derive it).
 */
export function connectionType<T>(name: string, node: ObjectRef<Types, unknown>) {
  const made = connections.get(name);
  if (made) return made as ObjectRef<Types, Connection<T>>;
  const connection = builder.connectionObject(
    {
      type: node as ObjectRef<Types, unknown>,
      name: `${name}Connection`,
      description: `A page of ${name} items, in the order the list field gives.`,
      extensions: { ...GRAPH_ONLY, restList: `${name}List` },
      fields: (t) => ({
        totalCount: t.int({
          nullable: true,
          description: 'Items in the whole list (null where counting is not offered).',
          resolve: (c) => (c as Connection<unknown>).count?.() ?? (c as Connection<unknown>).totalCount ?? null,
        }),
      }),
    },
    { description: `A ${name} item with its cursor.` },
  ) as unknown as ObjectRef<Types, Connection<unknown>>;
  connections.set(name, connection);
  return connection as ObjectRef<Types, Connection<T>>;
}

/**
 * The connection under each parent from the children of every parent, fetched in one statement
 * (newest first) by a plugin-dataloader `load`: grouped by parent and cut to the page.
 */
export function connectionsByParent<K, T extends { id: string | number }>(
  parents: readonly K[],
  rows: T[],
  first: number,
  parentOf: (row: T) => K,
  after?: string | null,
): Connection<T>[] {
  return groupBy(parents, rows, parentOf).map((group) =>
    connectionOf(group.slice(0, first + 1), first, undefined, after),
  );
}

/**
 * An edge from the account to one of its paged lists (`Account.domains`, `Account.tickets`…):
 * a `<Name>Connection` of `node` over the same service read as the list's REST operation.
 */
export function accountListEdge<T extends { id: string | number }>(
  field: string,
  scope: Scope,
  node: ObjectRef<Types, unknown>,
  description: string,
  list: (ctx: RequestContext, page: PageArgs) => Promise<Page<T>>,
): void {
  const connection = connectionType<T>(node.name, node);
  builder.prismaObjectFields('Account', (t) => ({
    [field]: t.field({
      ...edge(scope),
      type: connection,
      description,
      args: connectionArgs(t),
      resolve: async (_account, args, ctx) =>
        connectionOfPage(
          await pageForConnection(list(ctx, { limit: pageSize(args), cursor: args.after })),
          undefined,
          args.after,
        ),
    }),
  }));
}
