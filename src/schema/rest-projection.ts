import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  Kind,
  OperationTypeNode,
  print,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  getNamedType,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { listOperations, type Operation } from './operation.ts';
import { graphqlNameOf, isRestEnvelope, restView } from './rest-view.ts';

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
  /** The operation answers a list envelope: the result's connection is flattened (restResult). */
  envelope: boolean;
}

const built = new WeakMap<GraphQLSchema, Map<string, RestProjection>>();
const projectionDocuments = new WeakSet<DocumentNode>();
const projectionOperations = new WeakSet<OperationDefinitionNode>();

/** The REST projection of every operation, by `query.name` / `mutation.name`, in declaration order. */
export function restProjections(schema: GraphQLSchema): Map<string, RestProjection> {
  let projections = built.get(schema);
  if (!projections) {
    const rest = restView(schema);
    projections = new Map();
    for (const operation of listOperations(rest)) {
      const document = projectionOf(rest, operation);
      projectionDocuments.add(document);
      projectionOperations.add(document.definitions[0] as OperationDefinitionNode);
      const envelope = isRestEnvelope(getNamedType(operation.field.type));
      projections.set(`${operation.kind}.${operation.name}`, { operation, document, envelope });
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

/** True for a projection document: its values are named in REST's names (plugins/input-errors.ts). */
export function isRestProjection(document: DocumentNode): boolean {
  return projectionDocuments.has(document);
}

/** True for the operation of a projection document (a resolver's `info.operation`): its refusals name REST's arguments. */
export function isRestOperation(operation: OperationDefinitionNode): boolean {
  return projectionOperations.has(operation);
}

interface ConnectionResult {
  data: unknown[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * The REST body of a projection's result: a list envelope's connection flattened into
 * `{ data, hasMore, nextCursor }` (nextCursor null on the last page, as the spec's lists have it).
 */
export function restResult<R extends ExecutionResult>(projection: RestProjection, result: R): R {
  const name = projection.operation.name;
  const answer = result.data?.[name] as ConnectionResult | null | undefined;
  if (!projection.envelope || !answer) return result;
  const { hasNextPage, endCursor } = answer.pageInfo;
  const envelope = { data: answer.data, hasMore: hasNextPage, nextCursor: hasNextPage ? endCursor : null };
  return { ...result, data: { ...result.data, [name]: envelope } };
}

/** Every projection, as printed to schema/rest-projections.graphql. */
export function printRestProjections(schema: GraphQLSchema): string {
  return `${[...restProjections(schema).values()].map((p) => print(p.document)).join('\n\n')}\n`;
}

const PAGE_INFO = (parse('{ pageInfo { hasNextPage endCursor } }').definitions[0] as OperationDefinitionNode)
  .selectionSet.selections[0];

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
          const type = typeInfo.getType();
          const graphqlName = def && graphqlNameOf(def);
          let out: FieldNode = field;
          if (graphqlName)
            out = {
              ...out,
              alias: field.alias ?? { kind: Kind.NAME, value: field.name.value },
              name: { kind: Kind.NAME, value: graphqlName },
            };
          // A list envelope reads its connection: `data: nodes { … }` and where the page ends.
          if (type && isRestEnvelope(getNamedType(type)) && out.selectionSet)
            out = {
              ...out,
              selectionSet: {
                ...out.selectionSet,
                selections: [
                  ...out.selectionSet.selections.filter((s) => s.kind === Kind.FIELD && s.name.value === 'nodes'),
                  PAGE_INFO,
                ],
              },
            };
          return out === field ? undefined : out;
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
