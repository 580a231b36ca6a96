import {
  Kind,
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
import { createSofa, createSofaRouter } from 'sofa-api';
import { listOperations, type Operation } from './operation.ts';
import { graphqlNameOf, restEnvelopeOf, restPageOf, restView } from './rest-view.ts';

/**
 * An operation's REST projection: the document REST and MCP tools run for it on the full
 * schema. sofa-api generates it (sofaDocuments): the selection of every field of the return
 * type as the REST schema (rest-view.ts) shows it, in REST's names. The projection declares how
 * that document runs on the full schema, by renames only: a field REST names differently is
 * aliased (`created_at: createdAt`), an argument passed its REST-named variable
 * (`createMailbox(domainId: $domain_id)`), and a list envelope's `data` reads the connection's
 * nodes; so the REST variables and body keys are the spec's names while GraphQL keeps its own.
 * Printed to schema/rest-projections.graphql.
 */
export interface RestProjection {
  operation: Operation;
  document: DocumentNode;
  /** The operation answers a list envelope (`list`) or a page by number (`page`): the result's connection is flattened (restResult). */
  envelope: 'list' | 'page' | undefined;
}

export type RestProjections = ReadonlyMap<string, RestProjection>;

const built = new WeakMap<GraphQLSchema, Promise<RestProjections>>();
const projectionDocuments = new WeakSet<DocumentNode>();
const projectionOperations = new WeakSet<OperationDefinitionNode>();

/**
 * The REST projection of every operation, by `query.name` / `mutation.name`, in declaration
 * order: generated once per schema, at boot (sofa's router is built and asked once per route).
 */
export function restProjections(schema: GraphQLSchema): Promise<RestProjections> {
  let projections = built.get(schema);
  if (!projections) {
    projections = buildProjections(schema);
    built.set(schema, projections);
  }
  return projections;
}

async function buildProjections(schema: GraphQLSchema): Promise<RestProjections> {
  const rest = restView(schema);
  const generated = await sofaDocuments(rest);
  const projections = new Map<string, RestProjection>();
  for (const operation of listOperations(rest)) {
    const key = `${operation.kind}.${operation.name}`;
    const sofaDocument = generated.get(key);
    if (!sofaDocument) throw new TypeError(`sofa-api generated no route for ${operation.kind} ${operation.name}.`);
    const document = projectionOf(rest, sofaDocument);
    projectionDocuments.add(document);
    projectionOperations.add(document.definitions[0] as OperationDefinitionNode);
    const envelope = restEnvelopeOf(getNamedType(operation.field.type));
    projections.set(key, { operation, document, envelope });
  }
  return projections;
}

/** Where a sample request for a route goes: its path with each parameter filled (every parameter type takes `1`). */
const samplePath = (path: string) => path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '1');

/**
 * The documents sofa-api generates for the REST schema's operations, on the spec's methods and
 * paths, through its public API: sofa builds its router (a route per operation, with the
 * operation's document) and each route is called once with a request that executes nothing
 * (sofa's `execute` option receives the route's document and answers an empty result). Every
 * object type is returned whole: the types sofa would cut to `{ id }` as "models" are listed in
 * its `ignore` option.
 */
async function sofaDocuments(rest: GraphQLSchema): Promise<Map<string, DocumentNode>> {
  const operations = listOperations(rest);
  const documents = new Map<string, DocumentNode>();
  const config = {
    schema: rest,
    basePath: '/v1',
    // sofa-api's selection depth: a type may appear twice on a path (a server's snapshots' server is not followed).
    depthLimit: 2,
    routes: Object.fromEntries(
      operations.map((op) => [
        `${op.kind === 'query' ? 'Query' : 'Mutation'}.${op.name}`,
        { method: op.method, path: op.path },
      ]),
    ),
  };
  const sofa = createSofa({
    ...config,
    ignore: createSofa(config).models,
    execute: ((args: { document: DocumentNode }) => {
      const definition = args.document.definitions[0] as OperationDefinitionNode;
      const root = definition.selectionSet.selections[0] as FieldNode;
      documents.set(`${definition.operation}.${root.name.value}`, args.document);
      return { data: {} };
    }) as unknown as NonNullable<Parameters<typeof createSofa>[0]['execute']>,
  });
  const router = createSofaRouter(sofa);
  for (const op of operations)
    await router.fetch(new Request(`http://localhost/v1${samplePath(op.path)}`, { method: op.method }));
  return documents;
}

/** The projection of one operation of the REST schema. */
export function restProjection(
  projections: RestProjections,
  operation: Pick<Operation, 'kind' | 'name'>,
): RestProjection {
  const projection = projections.get(`${operation.kind}.${operation.name}`);
  if (!projection) throw new TypeError(`No REST projection for ${operation.kind} ${operation.name}.`);
  return projection;
}

/** True for a projection document: its values are named in REST's names (src/http/executor/stages/restate.ts). */
export function isRestProjection(document: DocumentNode): boolean {
  return projectionDocuments.has(document);
}

/** True for the operation of a projection document (a resolver's `info.operation`): its refusals name REST's arguments. */
export function isRestOperation(operation: OperationDefinitionNode): boolean {
  return projectionOperations.has(operation);
}

interface ConnectionResult {
  data: unknown[];
  /** A page envelope's: the connection's totalCount. */
  total?: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * The REST body of a projection's result: a list envelope's connection flattened into
 * `{ data, hasMore, nextCursor }` (nextCursor null on the last page, as the spec's lists have it),
 * or a page by number's into `{ data, hasMore, limit, page, total }` (`limit` and `page` as
 * asked, in the REST `variables`).
 */
export function restResult<R extends ExecutionResult>(
  projection: RestProjection,
  result: R,
  variables: Record<string, unknown> = {},
): R {
  const name = projection.operation.name;
  const answer = result.data?.[name] as ConnectionResult | null | undefined;
  if (!projection.envelope || !answer) return result;
  const { hasNextPage, endCursor } = answer.pageInfo;
  const envelope =
    projection.envelope === 'page'
      ? {
          data: answer.data,
          hasMore: hasNextPage,
          limit: variables.limit ?? restPageOf(projection.operation.field.extensions)?.defaultLimit,
          page: variables.page ?? 1,
          total: answer.total,
        }
      : { data: answer.data, hasMore: hasNextPage, nextCursor: hasNextPage ? endCursor : null };
  return { ...result, data: { ...result.data, [name]: envelope } };
}

/** Every projection, as printed to schema/rest-projections.graphql. */
export async function printRestProjections(schema: GraphQLSchema): Promise<string> {
  return `${[...(await restProjections(schema)).values()].map((p) => print(p.document)).join('\n\n')}\n`;
}

const PAGE_INFO = (parse('{ pageInfo { hasNextPage endCursor } }').definitions[0] as OperationDefinitionNode)
  .selectionSet.selections[0];

/** sofa's document for the REST schema as a document of the full schema: its declared renames (rest-name.ts). */
function projectionOf(rest: GraphQLSchema, sofaDocument: DocumentNode): DocumentNode {
  const node = sofaDocument.definitions[0] as OperationDefinitionNode;
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
          // A list envelope reads its connection: `data: nodes { … }`, a page's `total: totalCount`, and where the page ends.
          if (type && restEnvelopeOf(getNamedType(type)) && out.selectionSet)
            out = {
              ...out,
              selectionSet: {
                ...out.selectionSet,
                selections: [
                  ...out.selectionSet.selections.filter(
                    (s) => s.kind === Kind.FIELD && (s.name.value === 'nodes' || s.name.value === 'totalCount'),
                  ),
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
