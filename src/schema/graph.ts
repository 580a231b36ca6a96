import type { ArgBuilder, ObjectRef } from '@pothos/core';
import DataLoader from 'dataloader';
import { ApiError, badRequest, forbidden, unauthorized } from '../errors.ts';
import type { Scope } from '../scopes.ts';
import { builder, type Types } from './builder.ts';
import type { RequestContext } from './context.ts';
import { checkCursor, groupBy, PAGE_MAX, type Page, type PageArgs } from '../core/paging.ts';

/**
 * The connected graph (docs/REFERENCE.md: The graph): global object identification (Node, node, nodes),
 * cursor connections and edges. Edges are GraphQL-only: every field or type declared here
 * carries `graphOnly` (or `graphEdge`) in its extensions, and the REST view of the schema
 * (rest-view.ts), from which sofa, OpenAPI and MCP build their documents, leaves them out.
 */

/** Extensions of a graph-only type. */
export const GRAPH_ONLY = { graphOnly: true } as const;

/** Page size of a nested connection when `first` is not given. */
export const CONNECTION_DEFAULT = 50;

// ------------------------------------------------------------------ per-request loaders

/** Loader options of every batched edge (plugin-dataloader's `loaderOptions`): at most 1,000 keys a statement. */
export const LOADER_OPTIONS = { maxBatchSize: 1000 };

const loaders = new WeakMap<object, Map<string, DataLoader<unknown, unknown>>>();

/**
 * A DataLoader that lives as long as the request's context, for `node`/`nodes` only: one root
 * field loads ids of every kind, one batch per kind, which plugin-dataloader's loaders (one per
 * field) cannot say; its `loadableNode` does, once Node comes from plugin-relay.
 */
function loaderOf<K, V>(ctx: object, name: string, batch: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  let byName = loaders.get(ctx);
  if (!byName) {
    byName = new Map();
    loaders.set(ctx, byName);
  }
  let loader = byName.get(name) as DataLoader<K, V> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V>(batch, LOADER_OPTIONS);
    byName.set(name, loader as DataLoader<unknown, unknown>);
  }
  return loader;
}

// ------------------------------------------------------------------ scopes on edges

/** The scope-auth refusal's message for a missing scope (builder.ts uses the same words). */
const scopeMessage = (scope: string) => `This credential lacks the scope "${scope}".`;

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

export interface Connection<T> {
  nodes: T[];
  hasNextPage: boolean;
  /** True when the page was asked for `after` a cursor (pages only go forward). */
  hasPreviousPage?: boolean;
  endCursor: string | null;
  cursorOf(node: T): string;
  /** Counted only when the client asks for totalCount. */
  count?: () => Promise<number>;
}

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

/** `first` checked against the list limits (docs/REFERENCE.md: Pagination): 1 to PAGE_MAX, default CONNECTION_DEFAULT. */
export function pageSize(args: ConnectionArgs): number {
  const first = args.first ?? CONNECTION_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > PAGE_MAX)
    throw badRequest(`first must be an integer from 1 to ${PAGE_MAX}.`, 'first');
  return first;
}

/** A connection from rows fetched one beyond the page (newest first, cursor = the row's id). */
export function connectionOf<T extends { id: string | number }>(
  rows: T[],
  first: number,
  count?: () => Promise<number>,
  after?: string | null,
): Connection<T> {
  const nodes = rows.length > first ? rows.slice(0, first) : rows;
  const cursorOf = (n: T) => String(n.id);
  return {
    nodes,
    hasNextPage: rows.length > first,
    hasPreviousPage: after != null,
    endCursor: nodes.length ? cursorOf(nodes[nodes.length - 1]) : null,
    cursorOf,
    count,
  };
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
  const cursorOf = (n: T) => String(n.id);
  const last = page.data[page.data.length - 1];
  return {
    nodes: page.data,
    hasNextPage: page.hasMore,
    hasPreviousPage: after != null,
    endCursor: last ? cursorOf(last) : null,
    cursorOf,
    count,
  };
}

/** What a connection's fields read: a connection, or a service's page (`{ data, hasMore, nextCursor }`), a whole list among them. */
export type ConnectionSource<T> = Connection<T> | Page<T>;

const asConnection = <T>(source: ConnectionSource<T>): Connection<T> =>
  'nodes' in source ? source : (connectionOfPage(source as Page<{ id: string | number }>) as Connection<T>);

const PageInfo = builder.objectRef<Connection<unknown>>('PageInfo').implement({
  description: 'Where a page of a connection starts and ends, and whether pages come before or after it.',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'True when another page follows.' }),
    hasPreviousPage: t.boolean({
      description: 'True when this page was asked for `after` a cursor (pages go forward, newest first).',
      resolve: (c) => c.hasPreviousPage ?? false,
    }),
    startCursor: t.string({
      nullable: true,
      description: 'The cursor of the first item of this page; null when the page is empty.',
      resolve: (c) => (c.nodes.length ? c.cursorOf(c.nodes[0]) : null),
    }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` to get the next page.' }),
  }),
});

/** `first`/`after` arguments of a connection field. */
export const connectionArgs = (t: { arg: ArgBuilder<Types> }) => ({
  first: t.arg.int({
    required: false,
    description: `Items per page, 1 to ${PAGE_MAX} (default ${CONNECTION_DEFAULT}).`,
  }),
  after: t.arg.string({ required: false, description: 'endCursor of the previous page.' }),
});

const connections = new Map<string, ObjectRef<Types, ConnectionSource<unknown>>>();

/**
 * The `<Name>Connection` and `<Name>Edge` types of a node type, made once per node type: every
 * list of it, at the root or under a parent, is this connection. A root list's REST body is
 * its `<Name>List` envelope (`restList`; the REST schema, rest-view.ts, and the projection,
 * rest-projection.ts, derive it).
 */
export function connectionType<T>(name: string, node: ObjectRef<Types, unknown>) {
  const made = connections.get(name);
  if (made) return made as ObjectRef<Types, ConnectionSource<T>>;
  const Edge = builder.objectRef<{ node: T; cursor: string }>(`${name}Edge`).implement({
    description: `A ${name} item with its cursor.`,
    extensions: GRAPH_ONLY,
    fields: (t) => ({
      cursor: t.exposeString('cursor', { description: 'Pass as `after` to get the items that follow this one.' }),
      node: t.field({ type: node, description: 'The item.', resolve: (e) => e.node }),
    }),
  });
  const connection = builder.objectRef<ConnectionSource<T>>(`${name}Connection`).implement({
    description: `A page of ${name} items, in the order the list field gives.`,
    extensions: { ...GRAPH_ONLY, restList: `${name}List` },
    fields: (t) => ({
      edges: t.field({
        type: [Edge],
        description: 'The items of this page with their cursors.',
        resolve: (source) => {
          const c = asConnection(source);
          return c.nodes.map((n) => ({ node: n, cursor: c.cursorOf(n) }));
        },
      }),
      nodes: t.field({ type: [node], description: 'The items of this page.', resolve: (c) => asConnection(c).nodes }),
      pageInfo: t.field({
        type: PageInfo,
        description: 'Where this page starts and ends and whether another follows.',
        resolve: (c) => asConnection(c) as Connection<unknown>,
      }),
      totalCount: t.int({
        nullable: true,
        description: 'Items in the whole list (null where counting is not offered).',
        resolve: (c) => asConnection(c).count?.() ?? null,
      }),
    }),
  });
  connections.set(name, connection as ObjectRef<Types, ConnectionSource<unknown>>);
  return connection;
}

// ------------------------------------------------------------------ global object identification

type NodeRow = { id: string | number };

export interface NodeKind<Row extends NodeRow = NodeRow> {
  /** The id prefix of the kind (src/db/ids.ts): `srv` of `srv_...`. */
  prefix: string;
  typename: string;
  /**
   * The scope its root field needs, checked before anything is read; or, where items of one
   * kind need different scopes (an event needs its type's read scope), the scope of each item,
   * checked once it is read.
   */
  scope: Scope | ((row: Row) => Scope);
  /** Rows of these ids visible to the caller, in any order (the tenant client filters the account). */
  load(ctx: RequestContext, ids: readonly string[]): Promise<Row[]>;
}

const kinds = new Map<string, NodeKind>();

/** Registers a resource kind `node(id:)` can fetch. */
export function nodeKind<Row extends NodeRow>(kind: NodeKind<Row>): void {
  // A kind's per-item scope is only ever asked of rows its own `load` returned.
  kinds.set(kind.prefix, kind as unknown as NodeKind);
}

const kindOf = (id: string) => kinds.get(id.slice(0, id.indexOf('_')));

export const Node = builder.interfaceRef<{ id: string | number }>('Node').implement({
  description: 'A resource with a global id: the id REST uses for it (its prefix names the kind: srv_, pool_, inv_ …).',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The global id: the one REST uses; its prefix names the kind.' }),
  }),
  resolveType: (obj) => kindOf(String(obj.id))?.typename ?? null,
});

/**
 * One id: null when it names nothing the account owns (another account's resource reads as
 * missing); the root field's FORBIDDEN when the credential lacks the scope to read that kind
 * (or that item, for a kind whose scope is per item).
 */
async function loadNode(ctx: RequestContext, id: string): Promise<NodeRow | null> {
  if (!ctx.principal) throw unauthorized();
  const kind = kindOf(id);
  if (!kind) return null;
  const { scopes } = ctx.principal;
  if (typeof kind.scope === 'string' && !scopes.has(kind.scope)) throw forbidden(scopeMessage(kind.scope));
  const loader = loaderOf<string, NodeRow | null>(ctx, `node:${kind.prefix}`, async (ids) => {
    const rows = await kind.load(ctx, ids);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return ids.map((i) => byId.get(i) ?? null);
  });
  const row = await loader.load(id);
  const itemScope = row && typeof kind.scope === 'function' ? kind.scope(row) : null;
  if (itemScope && !scopes.has(itemScope)) throw forbidden(scopeMessage(itemScope));
  return row;
}

const MAX_NODE_IDS = 100;

builder.queryField('node', (t) =>
  t.field({
    description: 'Any resource by its id; null when no resource of the account has it.',
    type: Node,
    nullable: true,
    extensions: GRAPH_ONLY,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => loadNode(ctx, String(args.id)),
  }),
);

builder.queryField('nodes', (t) =>
  t.field({
    description: `Resources by their ids (at most ${MAX_NODE_IDS}), in the order asked; null for an id that names nothing of the account.`,
    type: [Node],
    nullable: { list: false, items: true },
    extensions: GRAPH_ONLY,
    args: { ids: t.arg.idList({ required: true }) },
    resolve: (_root, args, ctx) => {
      if (args.ids.length > MAX_NODE_IDS) throw badRequest(`ids may name at most ${MAX_NODE_IDS} resources.`, 'ids');
      // An error of one id (a kind the scopes cannot read) stays at its index; the others resolve.
      return args.ids.map((id) => loadNode(ctx, String(id)));
    },
  }),
);

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
