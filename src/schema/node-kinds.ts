import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { badRequest, lacksScope, unauthorized } from '../errors.ts';
import type { Scope } from '../scopes.ts';
import type { RequestContext } from './context.ts';

/**
 * The node types' global ids, as plugin-relay (builder.ts `relay`) reads them: a global id is the
 * resource's own prefixed id (`srv_…`), its prefix names the type. Each node type is declared
 * with plugin-relay's `builder.node` (loadedNode's options) or plugin-prisma's `prismaNode`
 * (prismaNodeOptions), which load its nodes; `node`/`nodes` check the kind's scope first. Kept
 * apart from graph.ts because the builder's options read it, and graph.ts loads the builder.
 */

/** Extensions of a graph-only type or field: the REST view (rest-view.ts) leaves it out. */
export const GRAPH_ONLY = { graphOnly: true } as const;

/** Loader options of every batched edge (plugin-dataloader's `loaderOptions`): at most 1,000 keys a statement. */
export const LOADER_OPTIONS = { maxBatchSize: 1000 };

/**
 * A loader of one request, for what a field's own loader (`t.loadable`, `t.loadableList`) cannot
 * carry: a load several fields share, one that is skipped when the parent already holds the
 * value, one read outside a field (holdsNode). `requestLoader(load)(ctx)` is the same loader for
 * every call with one request's context (the context object is the key, so one tenant's client),
 * and a new one for the next request. Batching goes through @pothos/plugin-dataloader only: this
 * is its `dataloaderGetter`, the getter its loadable fields and objects are made with, so its
 * loaders are the plugin's (cleared by its `clearAllDataLoaders`); at most LOADER_OPTIONS's keys a
 * statement. test/unit/dataloader-only.test.ts fails on a loader made by hand.
 */
export function requestLoader<K, V>(
  load: (keys: readonly K[], ctx: RequestContext) => Promise<readonly (V | Error)[]>,
) {
  return dataloaderGetter<K, V, K>(LOADER_OPTIONS, (keys, ctx) => load(keys, ctx as RequestContext), undefined, false);
}

type NodeRow = { id: string | number };
type GlobalId = { typename: string; id: string };

/** What a kind of node is besides its type: its ids' prefix, the scope that reads it, its id field. */
interface NodeKind<Row> {
  /** The id prefix of the kind (src/db/ids.ts): `srv` of `srv_...`. */
  prefix: string;
  /**
   * The scope `node`/`nodes` need to read it, checked before anything is read; or, where items of
   * one kind need different scopes (an event needs its type's read scope), the scope of each item,
   * checked once it is read.
   */
  scope: Scope | ((row: Row) => Scope);
  /** Options of its `id` field (its description above all: each kind says its prefix). */
  id: { description: string; extensions?: Record<string, unknown> };
}

/** What an id's prefix names: the type, the scope, and whether the caller's account holds one. */
interface KindEntry {
  typename: string;
  scope: Scope | ((row: NodeRow) => Scope);
  holds(ctx: RequestContext, id: string): Promise<boolean>;
  /** False for a loaded row the kind's reads do not show (a terminated server). */
  visible(row: NodeRow): boolean;
}

// The prefixes of the node types below, filled as each is declared: plugin-relay loads the nodes
// (its `loadMany`, or plugin-prisma's for a Prisma node); this only says which type an id names.
const byPrefix = new Map<string, KindEntry>();
const byTypename = new Map<string, KindEntry>();

function addKind<Row>(
  typename: string,
  kind: NodeKind<Row>,
  holds: KindEntry['holds'],
  visible: KindEntry['visible'] = () => true,
): void {
  // A kind's per-item scope and visibility are only ever asked of rows of its own type.
  const entry = { typename, scope: kind.scope as KindEntry['scope'], holds, visible };
  byPrefix.set(kind.prefix, entry);
  byTypename.set(typename, entry);
}

/**
 * Options for plugin-relay's `builder.node` of a type whose rows a service reads by ids:
 * `builder.node(builder.objectRef<Row>('Domain'), { ...loadedNode('Domain', {...}), fields })`.
 * Its `loadMany` goes through one loader per request (requestLoader), which the confirm stage's
 * holdsNode shares: one statement per kind however many ids a request names.
 */
export function loadedNode<Row extends NodeRow>(
  typename: string,
  kind: NodeKind<Row> & {
    /** Rows of these ids visible to the caller, in any order (the tenant client filters the account). */
    load(ctx: RequestContext, ids: readonly string[]): Promise<Row[]>;
  },
) {
  const loader = requestLoader<string, Row | null>(async (ids, ctx) => {
    const rows = await kind.load(ctx, ids);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return ids.map((i) => byId.get(i) ?? null);
  });
  addKind(typename, kind, async (ctx, id) => (await loader(ctx).load(id)) !== null);
  return {
    id: { ...kind.id, resolve: (row: NodeRow) => row.id },
    // A promise per id: a failed load fails its own node only.
    loadMany: (ids: readonly string[], ctx: RequestContext) => ids.map((id) => loader(ctx).load(id)),
  };
}

/**
 * Options for plugin-prisma's `builder.prismaNode` of a model: the plugin loads a node by its id
 * with the selection the query asks for (Prisma batches loads by id into one statement; the
 * tenant client adds the account). A row `visible` turns down reads as missing (a terminated
 * server), as the model's own reads have it; holdsNode reads the row with `find` and asks the same.
 */
export function prismaNodeOptions<Row extends NodeRow>(
  typename: string,
  kind: NodeKind<Row> & {
    visible?(row: Row): boolean;
    find(ctx: RequestContext, id: string): Promise<Row | null>;
  },
) {
  const visible = kind.visible ?? (() => true);
  addKind(
    typename,
    kind,
    async (ctx, id) => {
      const row = await kind.find(ctx, id);
      return row !== null && visible(row);
    },
    visible as KindEntry['visible'],
  );
  return { id: { ...kind.id, field: 'id' as const }, nullable: true as const };
}

const kindOf = (id: string) => byPrefix.get(id.slice(0, id.indexOf('_')));

/** plugin-relay's `decodeGlobalID`: the kind from the prefix; an unknown prefix names no type. */
export const decodeGlobalID = (id: string) => ({ typename: kindOf(id)?.typename ?? '', id });

/** plugin-relay's `encodeGlobalID`: the global id is the prefixed id itself. */
export const encodeGlobalID = (_typename: string, id: string | number | bigint) => String(id);

/** plugin-relay's own node resolution (its exported `resolveNodes`), bound to one field's call. */
export type ResolveNodes = (ids: GlobalId[]) => Promise<unknown[]>;

/**
 * The kind an id names, once the credential may read it: null for an id that names no kind
 * (another account's resource reads as missing too); the kind's FORBIDDEN when the credential
 * lacks the scope to read it, before anything is read.
 */
function readableKind(ctx: RequestContext, id: GlobalId): KindEntry | null {
  if (!ctx.principal) throw unauthorized();
  const kind = byTypename.get(id.typename);
  if (kind && typeof kind.scope === 'string' && !ctx.principal.scopes.has(kind.scope)) throw lacksScope(kind.scope);
  return kind ?? null;
}

/** A loaded node, once the credential may read that item (for a kind whose scope is per item). */
function readableRow(ctx: RequestContext, kind: KindEntry, row: unknown) {
  if (!row || !kind.visible(row as NodeRow)) return null;
  const itemScope = row && typeof kind.scope === 'function' ? kind.scope(row as NodeRow) : null;
  if (itemScope && !ctx.principal!.scopes.has(itemScope)) throw lacksScope(itemScope);
  return row;
}

/** `node(id:)`: null when the id names nothing of the account. */
export async function loadNode(ctx: RequestContext, id: GlobalId, resolve: ResolveNodes) {
  const kind = readableKind(ctx, id);
  if (!kind) return null;
  const [row] = await resolve([id]);
  return readableRow(ctx, kind, row);
}

export const MAX_NODE_IDS = 100;

/**
 * `nodes(ids:)`: at most MAX_NODE_IDS, resolved by the plugin in one call (one load per kind);
 * an error of one id stays at its index, the others resolve.
 */
export function loadNodes(ctx: RequestContext, ids: readonly GlobalId[], resolve: ResolveNodes) {
  if (ids.length > MAX_NODE_IDS) throw badRequest(`ids may name at most ${MAX_NODE_IDS} resources.`, 'ids');
  const kinds = ids.map((id) => {
    try {
      return { kind: readableKind(ctx, id) };
    } catch (error) {
      return { error };
    }
  });
  const asked = ids.filter((_, i) => kinds[i].kind);
  const rows = asked.length ? resolve(asked) : Promise.resolve([]);
  let at = 0;
  return kinds.map(({ kind, error }) => {
    if (error) return Promise.reject(error);
    if (!kind) return null;
    const slot = at++;
    return rows.then((r) => readableRow(ctx, kind, r[slot]));
  });
}

/**
 * Whether the caller's account holds the resource an id names, whatever the credential may read:
 * undefined when the prefix names no kind. The confirm stage asks no question about another
 * account's resource or a missing one: the operation answers its 404 (src/http/executor/stages/confirm.ts).
 */
export async function holdsNode(ctx: RequestContext, id: unknown): Promise<boolean | undefined> {
  if (typeof id !== 'string') return undefined;
  return kindOf(id)?.holds(ctx, id);
}
