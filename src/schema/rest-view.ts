import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { GraphQLObjectType, type GraphQLFieldConfig, type GraphQLSchema } from 'graphql';

const views = new WeakMap<GraphQLSchema, GraphQLSchema>();

const graphOnly = (extensions: unknown) => {
  const e = extensions as { graphOnly?: boolean; graphEdge?: unknown } | null | undefined;
  return Boolean(e?.graphOnly || e?.graphEdge);
};

/**
 * The schema as REST, OpenAPI and MCP see it: without the graph (schema/graph.ts) — no edges,
 * no connections, no Node, no node/nodes. sofa selects every field of a return type, so an edge
 * left in would change /v1 bodies (and expand without end through back edges); this view keeps
 * them exactly as before the graph existed. Same resolvers, so a document built from it runs
 * unchanged on the full schema.
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
          if (!graphOnly(field.extensions)) fields[name] = field;
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
