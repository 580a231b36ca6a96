import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  Kind,
  OperationTypeNode,
  print,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { listOperations, type Operation } from './operation.ts';
import { graphqlNameOf, restView } from './rest-view.ts';

/**
 * An operation's REST projection: the document REST and MCP tools run for it on the full
 * schema. It selects what the REST schema (rest-view.ts) shows of the return type — every field,
 * as sofa-api selects them — each under its REST name: a field REST names differently is
 * aliased (`created_at: createdAt`), an argument passed its REST-named variable
 * (`createMailbox(domainId: $domain_id)`), so the REST variables and body keys are the spec's
 * names while GraphQL keeps its own. Printed to schema/rest-projections.graphql.
 */
export interface RestProjection {
  operation: Operation;
  document: DocumentNode;
}

const built = new WeakMap<GraphQLSchema, Map<string, RestProjection>>();
const projectionDocuments = new WeakSet<DocumentNode>();

/** The REST projection of every operation, by `query.name` / `mutation.name`, in declaration order. */
export function restProjections(schema: GraphQLSchema): Map<string, RestProjection> {
  let projections = built.get(schema);
  if (!projections) {
    const rest = restView(schema);
    projections = new Map();
    for (const operation of listOperations(rest)) {
      const document = projectionOf(rest, operation);
      projectionDocuments.add(document);
      projections.set(`${operation.kind}.${operation.name}`, { operation, document });
    }
    built.set(schema, projections);
  }
  return projections;
}

/** The projection of one operation of the REST schema. */
export function restProjection(schema: GraphQLSchema, operation: Pick<Operation, 'kind' | 'name'>): RestProjection {
  const projection = restProjections(schema).get(`${operation.kind}.${operation.name}`);
  if (!projection) throw new TypeError(`No REST projection for ${operation.kind} ${operation.name}.`);
  return projection;
}

/** True for a projection document: its values are named in REST's names (plugins/input-rules.ts). */
export function isRestProjection(document: DocumentNode): boolean {
  return projectionDocuments.has(document);
}

/** Every projection, as printed to schema/rest-projections.graphql. */
export function printRestProjections(schema: GraphQLSchema): string {
  return `${[...restProjections(schema).values()].map((p) => print(p.document)).join('\n\n')}\n`;
}

function projectionOf(rest: GraphQLSchema, operation: Operation): DocumentNode {
  const node = buildOperationNodeForField({
    schema: rest,
    kind: operation.kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
    field: operation.name,
    models: [],
    ignore: [],
    // sofa-api's depthLimit (sofa-handlers.ts): the same selection sofa generates.
    circularReferenceDepth: 2,
  });
  const typeInfo = new TypeInfo(rest);
  const renamed = visit(
    node,
    visitWithTypeInfo(typeInfo, {
      // On leave, so the type information of what is inside still reads the REST schema's names.
      [Kind.FIELD]: {
        leave(field) {
          const def = typeInfo.getFieldDef();
          const graphqlName = def && graphqlNameOf(def);
          if (!graphqlName) return undefined;
          return {
            ...field,
            alias: field.alias ?? { kind: Kind.NAME, value: field.name.value },
            name: { kind: Kind.NAME, value: graphqlName },
          };
        },
      },
      [Kind.ARGUMENT]: {
        leave(argument) {
          const def = typeInfo.getArgument();
          const graphqlName = def && graphqlNameOf(def);
          return graphqlName ? { ...argument, name: { kind: Kind.NAME, value: graphqlName } } : undefined;
        },
      },
    }),
  ) as OperationDefinitionNode;
  return { kind: Kind.DOCUMENT, definitions: [renamed] };
}
