import { MapperKind, mapSchema, rewireTypes } from '@graphql-tools/utils';
import {
  getNamedType,
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  isListType,
  isNonNullType,
  lexicographicSortSchema,
  GraphQLString,
  type GraphQLArgumentConfig,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLNamedType,
  type GraphQLObjectTypeConfig,
  type GraphQLOutputType,
} from 'graphql';
import type { RestPageEnvelope } from './rest-name.ts';

const views = new WeakMap<GraphQLSchema, GraphQLSchema>();

const graphOnly = (extensions: unknown) => {
  const e = extensions as { graphOnly?: boolean; graphEdge?: unknown } | null | undefined;
  return Boolean(e?.graphOnly || e?.graphEdge);
};

/** The REST name declared on a field, argument or type (rest-name.ts), if it differs from the GraphQL name. */
const restNameOf = (extensions: unknown) => (extensions as { restName?: string } | null | undefined)?.restName;
/** A field REST shows only in its type's detail form, or an operation that answers it (rest-name.ts). */
const isRestDetail = (extensions: unknown) => Boolean((extensions as { restDetail?: unknown } | null)?.restDetail);
/** The detail form an object type declares (rest-name.ts `restDetailType`). */
const detailTypeOf = (extensions: unknown) =>
  (extensions as { restDetail?: { name: string; description: string } } | null | undefined)?.restDetail;
/** The REST envelope a connection type answers at the root (graph.ts `connectionType`). */
const restListOf = (extensions: unknown) => (extensions as { restList?: string } | null | undefined)?.restList;
/** REST's page-numbered envelope of a root list (rest-name.ts `restPageExtensions`). */
export const restPageOf = (extensions: unknown) =>
  (extensions as { restPage?: RestPageEnvelope } | null | undefined)?.restPage;
const restDescriptionOf = (extensions: unknown) =>
  (extensions as { restDescription?: string } | null | undefined)?.restDescription;

/**
 * The kind of a REST list envelope type, whose projection reads a connection (rest-projection.ts):
 * `list` for `{ data, hasMore, nextCursor }`, `page` for a page by number; undefined for any other type.
 */
export function restEnvelopeOf(type: { extensions?: unknown }): 'list' | 'page' | undefined {
  return (type.extensions as { restEnvelope?: 'list' | 'page' } | null | undefined)?.restEnvelope;
}

/** The GraphQL name of a REST schema's field or argument that REST names differently; undefined where the names agree. */
export function graphqlNameOf(element: { extensions?: unknown }): string | undefined {
  return (element.extensions as { graphqlName?: string } | null | undefined)?.graphqlName;
}

/**
 * The schema as REST, OpenAPI and MCP see it, in the spec's names: without the graph
 * (schema/graph.ts) — no edges, no connections, no Node, no node/nodes, no GraphQL-only
 * arguments — with each field and argument that declares a `restName` (rest-name.ts) under
 * that name (it keeps its GraphQL name as `graphqlName`), each object type that declares one
 * (`restTypeName`) under it, and each type that declares a detail form (`restDetailType`) as
 * two types: itself without its `restDetail` fields, and the detail with them, which the
 * operations marked `restDetail` answer; a root list (a connection) answers its `<Item>List`
 * envelope `{ data, hasMore, nextCursor }`, or the page-numbered envelope it declares
 * (`restPageExtensions`). Sorted by REST's names. Nothing executes on it: each operation's
 * REST projection (rest-projection.ts) is built from it and runs on the full schema.
 */
export function restView(schema: GraphQLSchema): GraphQLSchema {
  let view = views.get(schema);
  if (!view) {
    view = buildRestView(schema);
    views.set(schema, view);
  }
  return view;
}

function buildRestView(schema: GraphQLSchema): GraphQLSchema {
  const details: GraphQLObjectTypeConfig<unknown, unknown>[] = [];
  const detailOf = new Map<string, string>();
  const mapped = mapSchema(schema, {
    [MapperKind.OBJECT_TYPE]: (type) => {
      // A connection a root list returns stays until that list is given its envelope (below).
      if (restListOf(type.extensions)) return type;
      if (graphOnly(type.extensions)) return null;
      const config = type.toConfig();
      const fields = restFields(config.fields);
      const interfaces = config.interfaces.filter((i) => !graphOnly(i.extensions));
      const detail = detailTypeOf(config.extensions);
      if (detail) {
        details.push({ ...config, ...detail, fields, interfaces: [], extensions: {} });
        detailOf.set(config.name, detail.name);
      }
      const own = Object.fromEntries(
        Object.entries(fields).filter(([, f]) => !(detail && isRestDetail(f.extensions))),
      ) as GraphQLFieldConfigMap<unknown, unknown>;
      const name = restNameOf(config.extensions) ?? config.name;
      return new GraphQLObjectType({ ...config, name, fields: own, interfaces });
    },
    [MapperKind.INTERFACE_TYPE]: (type) => (graphOnly(type.extensions) ? null : type),
  });
  // The detail types join the schema, and the operations marked restDetail answer them; the
  // root lists answer their envelopes.
  const config = mapped.toConfig();
  const typeMap: Record<string, GraphQLNamedType> = {};
  for (const type of config.types) typeMap[type.name] = type;
  for (const detail of details) typeMap[detail.name] = new GraphQLObjectType(detail);
  for (const root of [config.query, config.mutation]) {
    if (!root) continue;
    const rootConfig = root.toConfig();
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const [name, field] of Object.entries(rootConfig.fields)) {
      const returns = getNamedType(field.type);
      const list = restListOf(returns.extensions);
      const page = restPageOf(field.extensions);
      const detail = isRestDetail(field.extensions) && detailOf.get(returns.name);
      if (list && page) {
        const item = getNamedType((returns as GraphQLObjectType).getFields().nodes.type).name;
        typeMap[page.name] ??= pageEnvelopeType(page, typeMap[item] as GraphQLObjectType);
        fields[name] = { ...field, type: retyped(field.type, typeMap[page.name] as GraphQLObjectType) };
      } else if (list) {
        const item = getNamedType((returns as GraphQLObjectType).getFields().nodes.type).name;
        typeMap[list] ??= envelopeType(list, typeMap[item] as GraphQLObjectType);
        fields[name] = { ...field, type: retyped(field.type, typeMap[list] as GraphQLObjectType) };
      } else if (detail) fields[name] = { ...field, type: retyped(field.type, typeMap[detail] as GraphQLObjectType) };
      else fields[name] = field;
    }
    typeMap[root.name] = new GraphQLObjectType({ ...rootConfig, fields });
  }
  for (const [name, type] of Object.entries(typeMap)) if (restListOf(type.extensions)) delete typeMap[name];
  const rewired = rewireTypes(typeMap, config.directives);
  const rootOf = (type: GraphQLObjectType | null | undefined) =>
    type ? (rewired.typeMap[type.name] as GraphQLObjectType) : undefined;
  return lexicographicSortSchema(
    new GraphQLSchema({
      ...config,
      query: rootOf(config.query),
      mutation: rootOf(config.mutation),
      subscription: rootOf(config.subscription),
      types: Object.values(rewired.typeMap),
      directives: rewired.directives,
    }),
  );
}

/** The list envelope REST answers for a root list: its items are the connection's nodes. */
function envelopeType(name: string, item: GraphQLObjectType): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    extensions: { restEnvelope: 'list' },
    fields: {
      data: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(item))),
        description: 'The items of this page.',
        extensions: { graphqlName: 'nodes' },
      },
      hasMore: { type: new GraphQLNonNull(GraphQLBoolean), description: 'True when another page follows.' },
      nextCursor: { type: GraphQLString, description: 'Pass as cursor for the next page; null on the last.' },
    },
  });
}

/** The page-numbered envelope REST answers for a root list that declares one: the connection's nodes and count. */
function pageEnvelopeType(page: RestPageEnvelope, item: GraphQLObjectType): GraphQLObjectType {
  const int = new GraphQLNonNull(GraphQLInt);
  return new GraphQLObjectType({
    name: page.name,
    description: page.description,
    extensions: { restEnvelope: 'page' },
    fields: {
      data: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(item))),
        description: page.data,
        extensions: { graphqlName: 'nodes' },
      },
      page: { type: int, description: 'This page number, from 1.' },
      limit: { type: int, description: page.limit },
      total: { type: int, description: page.total, extensions: { graphqlName: 'totalCount' } },
      hasMore: { type: new GraphQLNonNull(GraphQLBoolean), description: 'True when another page follows.' },
    },
  });
}

function restFields(fields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> {
  const out: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
  for (const [name, field] of Object.entries(fields))
    if (!graphOnly(field.extensions)) {
      const [restName, restField] = renamed(name, field);
      out[restName] = { ...restField, args: restArgs(field.args) };
    }
  return out;
}

/** The same wrapping (non-null, list) around another named type. */
function retyped(type: GraphQLOutputType, named: GraphQLObjectType): GraphQLOutputType {
  if (isNonNullType(type)) return new GraphQLNonNull(retyped(type.ofType, named));
  if (isListType(type)) return new GraphQLList(retyped(type.ofType, named));
  return named;
}

function renamed<C extends { extensions?: unknown; description?: string | null }>(
  name: string,
  config: C,
): [string, C] {
  const description = restDescriptionOf(config.extensions);
  const described = description ? { ...config, description } : config;
  const restName = restNameOf(config.extensions);
  if (!restName || restName === name) return [name, described];
  return [restName, { ...described, extensions: { ...(config.extensions as object), graphqlName: name } }];
}

function restArgs(args: GraphQLFieldConfigArgumentMap | undefined): GraphQLFieldConfigArgumentMap | undefined {
  if (!args) return args;
  const out: Record<string, GraphQLArgumentConfig> = {};
  for (const [name, arg] of Object.entries(args)) {
    // A GraphQL-only argument (an offset connection's paging, offset-connections.ts) is not REST's.
    if (graphOnly(arg.extensions)) continue;
    const [restName, restArg] = renamed(name, arg);
    out[restName] = restArg;
  }
  return out;
}
