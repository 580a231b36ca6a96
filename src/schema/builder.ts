import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { lacksScope, unauthorized } from '../errors.ts';
import { ALL_SCOPES, type Scope } from '../scopes.ts';
import type { RequestContext } from './context.ts';
import { inputRuleRefusal } from './input-schemas.ts';
import RestNamePlugin from './rest-name.ts';
import ToolNamePlugin from './tool-names.ts';
import {
  decodeGlobalID,
  encodeGlobalID,
  GRAPH_ONLY,
  loadNode,
  loadNodes,
  MAX_NODE_IDS,
  type ResolveNodes,
} from './node-kinds.ts';

/** The builder's type parameters, for helpers that build fields outside a field callback. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The one schema builder: every plugin and scalar is named here. */
export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: Record<Scope, boolean>;
  Scalars: {
    // GraphQL's ID input coercion always yields a string (an integer literal included).
    ID: { Input: string; Output: string | number };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
}>({
  plugins: [
    // Every field's auth scope (op() of operationsOf, edge()): 401 without a credential, 403 without the scope.
    ScopeAuthPlugin,
    // Objects backed by Prisma models, read through the caller's tenant client with selections.
    PrismaPlugin,
    // Input schemas (zod, `...inputSchema(schema)`, input-schemas.ts) checked on coerced arguments before the resolver.
    // (Its `validate` on FieldRef breaks the type of prismaObjectField's callback: use prismaObjectFields.)
    ValidationPlugin,
    // Loaders that live per request: one statement per level of a nested query (the areas' graph.ts).
    DataloaderPlugin,
    // Node, node/nodes and connections (graph.ts): a global id is the prefixed id (node-kinds.ts).
    RelayPlugin,
    // The REST name, description and detail form of fields and arguments (rest-name.ts): REST's projections.
    RestNamePlugin,
    // Each operation's MCP tool name, from its field's name and its area's manifest (tool-names.ts).
    ToolNamePlugin,
  ],
  defaultFieldNullability: false,
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) =>
      Object.fromEntries(ALL_SCOPES.map((s) => [s, ctx.principal?.scopes.has(s) ?? false])) as Record<Scope, boolean>,
    unauthorizedError: (_parent, ctx, _info, result) =>
      ctx.principal ? lacksScope(firstScope(result.failure)) : unauthorized(),
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID,
    decodeGlobalID,
    idFieldOptions: { description: 'The global id: the one REST uses; its prefix names the kind.' },
    nodeTypeOptions: {
      description:
        'A resource with a global id: the id REST uses for it (its prefix names the kind: srv_, pool_, inv_ …).',
      extensions: GRAPH_ONLY,
    },
    nodeQueryOptions: {
      description: 'Any resource by its id; null when no resource of the account has it.',
      extensions: GRAPH_ONLY,
      resolve: (_root, args, ctx, info) => loadNode(ctx, args.id, nodesOf(ctx, info)),
    },
    nodesQueryOptions: {
      description: `Resources by their ids (at most ${MAX_NODE_IDS}), in the order asked; null for an id that names nothing of the account.`,
      extensions: GRAPH_ONLY,
      resolve: (_root, args, ctx, info) => loadNodes(ctx, args.ids, nodesOf(ctx, info)),
    },
    pageInfoTypeOptions: {
      description: 'Where a page of a connection starts and ends, and whether pages come before or after it.',
      extensions: GRAPH_ONLY,
    },
    hasNextPageFieldOptions: { description: 'True when another page follows.' },
    hasPreviousPageFieldOptions: {
      description:
        'True when items come before this page: it was asked for `after` a cursor, or paged back (`last`, `before`) short of the start.',
    },
    startCursorFieldOptions: {
      description:
        'The cursor of the first item of this page: pass as `before` to page back where the list takes `last`. Null when a keyset-paged page is empty.',
    },
    endCursorFieldOptions: { description: 'Pass as `after` to get the next page.' },
    pageInfoFieldOptions: { description: 'Where this page starts and ends and whether another follows.' },
    edgesFieldOptions: {
      description: 'The items of this page with their cursors.',
      nullable: { list: false, items: false },
    },
    nodesOnConnection: { description: 'The items of this page.' },
    nodeFieldOptions: { description: 'The item.' },
    cursorFieldOptions: { description: 'Pass as `after` to get the items that follow this one.' },
    defaultEdgeTypeOptions: { extensions: GRAPH_ONLY },
  },
  validation: {
    // The API's 400 naming the broken rule; http/executor/stages/restate.ts states every one.
    validationError: (failure, args) => inputRuleRefusal(failure, args),
  },
  prisma: {
    // Resolvers see only the caller's account: the plugin queries through the tenant client.
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

/** plugin-relay's node resolution for one `node`/`nodes` call: each type's loader, once per type. */
function nodesOf(ctx: RequestContext, info: GraphQLResolveInfo): ResolveNodes {
  return (ids) => resolveNodes(builder, ctx, info, ids);
}

/** The first scope scope-auth's failure names: its own, or one of the failures it combines. */
function firstScope(failure: unknown): string | undefined {
  if (!failure) return undefined;
  const parts = failure as { scope?: unknown; failures?: unknown[] };
  if (typeof parts.scope === 'string') return parts.scope;
  for (const f of parts.failures ?? []) {
    const found = firstScope(f);
    if (found) return found;
  }
  return undefined;
}

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (typeof value !== 'string' || Number.isNaN(date.getTime()))
      throw new TypeError('Expected an ISO 8601 timestamp.');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({});
builder.mutationType({});
