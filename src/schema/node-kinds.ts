import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { badRequest, lacksScope, unauthorized } from '../errors.ts';
import type { Scope } from '../scopes.ts';
import type { RequestContext } from './context.ts';

/**
 * The resource kinds `node(id:)` fetches, and what plugin-relay (builder.ts `relay`) reads of them:
 * a global id is the resource's own prefixed id (`srv_…`), its prefix names the kind. Kept apart
 * from graph.ts because the builder's options read it, and graph.ts loads the builder.
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
const byTypename = new Map<string, NodeKind>();

// One loader per kind per request: one statement per kind however many ids a query names.
// Plugin-relay's own loading (`builder.node`'s loadMany) would need every kind declared as a
// relay node type; the kinds are Prisma objects with their scope rules, loaded here.
const loaders = new Map<string, ReturnType<typeof requestLoader<string, NodeRow | null>>>();

/** Registers a resource kind `node(id:)` can fetch. */
export function nodeKind<Row extends NodeRow>(kind: NodeKind<Row>): void {
  // A kind's per-item scope is only ever asked of rows its own `load` returned.
  kinds.set(kind.prefix, kind as unknown as NodeKind);
  byTypename.set(kind.typename, kind as unknown as NodeKind);
  loaders.set(
    kind.prefix,
    requestLoader<string, NodeRow | null>(async (ids, ctx) => {
      const rows = await kind.load(ctx, ids);
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      return ids.map((i) => byId.get(i) ?? null);
    }),
  );
}

const kindOf = (id: string) => kinds.get(id.slice(0, id.indexOf('_')));

/** plugin-relay's `decodeGlobalID`: the kind from the prefix; an unknown prefix names no type. */
export const decodeGlobalID = (id: string) => ({ typename: kindOf(id)?.typename ?? '', id });

/** plugin-relay's `encodeGlobalID`: the global id is the prefixed id itself. */
export const encodeGlobalID = (_typename: string, id: string | number | bigint) => String(id);

/** The Node interface's type of a row: the kind its id's prefix names. */
export const nodeTypename = (row: unknown) => kindOf(String((row as NodeRow).id))?.typename ?? null;

/** The loader of a kind for one request. */
const loaderOf = (ctx: RequestContext, kind: NodeKind) => loaders.get(kind.prefix)!(ctx);

/**
 * One decoded id: null when it names nothing the account owns (another account's resource reads
 * as missing); the root field's FORBIDDEN when the credential lacks the scope to read that kind
 * (or that item, for a kind whose scope is per item).
 */
export async function loadNode(ctx: RequestContext, id: { typename: string; id: string }): Promise<NodeRow | null> {
  if (!ctx.principal) throw unauthorized();
  const kind = byTypename.get(id.typename);
  if (!kind) return null;
  const { scopes } = ctx.principal;
  if (typeof kind.scope === 'string' && !scopes.has(kind.scope)) throw lacksScope(kind.scope);
  const row = await loaderOf(ctx, kind).load(id.id);
  const itemScope = row && typeof kind.scope === 'function' ? kind.scope(row) : null;
  if (itemScope && !scopes.has(itemScope)) throw lacksScope(itemScope);
  return row;
}

export const MAX_NODE_IDS = 100;

/** `nodes(ids:)`: at most MAX_NODE_IDS; an error of one id stays at its index, the others resolve. */
export function loadNodes(ctx: RequestContext, ids: readonly { typename: string; id: string }[]) {
  if (ids.length > MAX_NODE_IDS) throw badRequest(`ids may name at most ${MAX_NODE_IDS} resources.`, 'ids');
  return ids.map((id) => loadNode(ctx, id));
}

/**
 * Whether the caller's account holds the resource an id names, whatever the credential may read:
 * undefined when the prefix names no kind. The confirm stage asks no question about another
 * account's resource or a missing one: the operation answers its 404 (src/http/executor/stages/confirm.ts).
 */
export async function holdsNode(ctx: RequestContext, id: unknown): Promise<boolean | undefined> {
  if (typeof id !== 'string') return undefined;
  const kind = kindOf(id);
  if (!kind) return undefined;
  return (await loaderOf(ctx, kind).load(id)) !== null;
}
