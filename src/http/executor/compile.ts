import {
  getOperationAST,
  print,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { RequestContext } from '../../schema/context.ts';
import type { OperationMeta } from '../../schema/operation.ts';
import type { RestProjection } from '../../schema/rest-projection.ts';
import { rootFields } from './root-fields.ts';

/**
 * A document ready to run, compiled once: graphql-jit turns it into plain functions (which
 * matters most for REST and MCP, whose documents are fixed per operation and select every field
 * of often long lists), and what the stages ask of it is read once: the operation, its root
 * fields' metadata, its printed text (the Idempotency-Key's fingerprint).
 */
export interface CompiledDocument {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName?: string;
  /** The operation that runs; undefined when the document names none unambiguously (graphql-jit then answers the error). */
  readonly operation?: OperationDefinitionNode;
  /** The root fields with operation metadata (fragments followed). */
  readonly roots: readonly { name: string; meta: OperationMeta }[];
  /** The named operation a /v1 route or an MCP tool runs: its REST projection (the answer is its REST body). */
  readonly projection?: RestProjection;
  printed(): string;
  run(rootValue: unknown, context: RequestContext, variables: Record<string, unknown>): Promise<ExecutionResult>;
  subscribe?(
    rootValue: unknown,
    context: RequestContext,
    variables: Record<string, unknown>,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

const compiledDocuments = new WeakMap<DocumentNode, Map<string | symbol, CompiledDocument>>();
const NO_NAME = Symbol('no operation name');

/**
 * The compiled form of a document, from the cache: yoga hands the same parsed document for the
 * same query text (its parser cache), and each REST projection is one document, so each is
 * compiled once for as long as it lives.
 */
export function compiled(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  projection?: RestProjection,
): CompiledDocument {
  let byName = compiledDocuments.get(document);
  if (!byName) {
    byName = new Map();
    compiledDocuments.set(document, byName);
  }
  // No name and the empty name are two requests: only the first may pick a document's one operation.
  const name = operationName ?? NO_NAME;
  let found = byName.get(name);
  if (!found || found.schema !== schema) {
    found = compile(schema, document, operationName ?? undefined, projection);
    byName.set(name, found);
  }
  return found;
}

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  projection: RestProjection | undefined,
): CompiledDocument {
  const jit = compileQuery(schema, document, operationName);
  let printed: string | undefined;
  const base = {
    schema,
    document,
    operationName,
    operation: getOperationAST(document, operationName) ?? undefined,
    roots: rootFields(schema, document, operationName),
    projection,
    printed: () => (printed ??= print(document)),
  };
  if (!isCompiledQuery(jit)) {
    // The document cannot run (an operation name that is not in it): every run answers why.
    const failed = jit as ExecutionResult;
    return { ...base, run: async () => failed };
  }
  return {
    ...base,
    run: async (rootValue, context, variables) => jit.query(rootValue, context, variables),
    subscribe: jit.subscribe
      ? async (rootValue, context, variables) =>
          (await jit.subscribe!(rootValue, context, variables)) as
            | AsyncIterableIterator<ExecutionResult>
            | ExecutionResult
      : undefined,
  };
}
