import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  GraphQLObjectType,
  type GraphQLArgumentConfig,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLSchema,
} from 'graphql';

const views = new WeakMap<GraphQLSchema, GraphQLSchema>();

const graphOnly = (extensions: unknown) => {
  const e = extensions as { graphOnly?: boolean; graphEdge?: unknown } | null | undefined;
  return Boolean(e?.graphOnly || e?.graphEdge);
};

/** The REST name declared on a field or argument (rest-name.ts), if it differs from the GraphQL name. */
const restNameOf = (extensions: unknown) => (extensions as { restName?: string } | null | undefined)?.restName;

/** The GraphQL name of a REST schema's field or argument that REST names differently; undefined where the names agree. */
export function graphqlNameOf(element: { extensions?: unknown }): string | undefined {
  return (element.extensions as { graphqlName?: string } | null | undefined)?.graphqlName;
}

/**
 * The schema as REST, OpenAPI and MCP see it, in the spec's names: without the graph
 * (schema/graph.ts) — no edges, no connections, no Node, no node/nodes — and with each field
 * and argument that declares a `restName` (rest-name.ts) under that name (it keeps its GraphQL
 * name as `graphqlName`). Nothing executes on it: each operation's REST projection
 * (rest-projection.ts) is built from it and runs on the full schema.
 */
export function restView(schema: GraphQLSchema): GraphQLSchema {
  let view = views.get(schema);
  if (!view) {
    view = mapSchema(schema, {
      [MapperKind.OBJECT_TYPE]: (type) => {
        if (graphOnly(type.extensions)) return null;
        const config = type.toConfig();
        const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
        for (const [name, field] of Object.entries(config.fields))
          if (!graphOnly(field.extensions)) {
            const [restName, restField] = renamed(name, field);
            fields[restName] = { ...restField, args: restArgs(field.args) };
          }
        return new GraphQLObjectType({
          ...config,
          fields,
          interfaces: config.interfaces.filter((i) => !graphOnly(i.extensions)),
        });
      },
      [MapperKind.INTERFACE_TYPE]: (type) => (graphOnly(type.extensions) ? null : type),
    });
    views.set(schema, view);
  }
  return view;
}

function renamed<C extends { extensions?: unknown }>(name: string, config: C): [string, C] {
  const restName = restNameOf(config.extensions);
  if (!restName || restName === name) return [name, config];
  return [restName, { ...config, extensions: { ...(config.extensions as object), graphqlName: name } }];
}

function restArgs(args: GraphQLFieldConfigArgumentMap | undefined): GraphQLFieldConfigArgumentMap | undefined {
  if (!args) return args;
  const out: Record<string, GraphQLArgumentConfig> = {};
  for (const [name, arg] of Object.entries(args)) {
    const [restName, restArg] = renamed(name, arg);
    out[restName] = restArg;
  }
  return out;
}
