import {
  getNamedType,
  getOperationAST,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type ValidationContext,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { badRequest } from '../../../errors.ts';
import { CONNECTION_DEFAULT } from '../../../schema/graph.ts';

const OBJECT_COST = 2;
const SCALAR_COST = 1;
const DEPTH_FACTOR = 1.5;

export interface CostLimits {
  /** The document's shape: each connection counted once. */
  maxCost: number;
  /** The same with each connection's subtree counted `first` times (default CONNECTION_DEFAULT). */
  maxPagedCost: number;
}

/**
 * A document's cost, graphql-armor's way (2 per object, 1 per scalar, ×1.5 per level of depth;
 * introspection free, fragments counted where they are spread). With `variables`, a connection
 * (a `…Connection` type) costs its page size times what each item selects — `first` as written,
 * from a variable, or the default — so the cost follows what the query can return.
 */
export function documentCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown> | null,
): number {
  return costOf(schema, document, operationName, variables).cost;
}

/** The cost, and whether it counted a connection's page size (so depends on the variables). */
function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown> | null,
): { cost: number; paged: boolean } {
  const operation = getOperationAST(document, operationName);
  if (!operation) return { cost: 0, paged: false };
  let paged = false;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const root = schema.getRootType(operation.operation) ?? undefined;
  const spreading = new Set<string>();

  const setCost = (set: SelectionSetNode, type: GraphQLNamedType | undefined, depth: number): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(sel.name.value);
        // A fragment cycle is invalid (graphql-js refuses it); it is not followed here.
        if (!fragment || spreading.has(fragment.name.value)) continue;
        spreading.add(fragment.name.value);
        cost += setCost(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined, depth);
        spreading.delete(fragment.name.value);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        cost += setCost(
          sel.selectionSet,
          sel.typeCondition ? (schema.getType(sel.typeCondition.name.value) ?? undefined) : type,
          depth,
        );
      } else {
        if (sel.name.value === '__schema' || sel.name.value === '__type') continue;
        if (!sel.selectionSet) {
          cost += depth === 0 ? SCALAR_COST : DEPTH_FACTOR * SCALAR_COST;
          continue;
        }
        const field =
          type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[sel.name.value] : undefined;
        const child = field ? getNamedType(field.type) : undefined;
        let itemCost = OBJECT_COST + setCost(sel.selectionSet, child, depth + 1);
        if (variables && child?.name.endsWith('Connection') && child.extensions?.graphOnly) {
          paged = true;
          // The page's size: `first`, or `last` where a list pages back.
          const size = ['first', 'last']
            .map((name) => sel.arguments?.find((a) => a.name.value === name))
            .find((arg) => arg && valueFromASTUntyped(arg.value, variables) != null);
          const value = size ? valueFromASTUntyped(size.value, variables) : undefined;
          itemCost *= typeof value === 'number' && value > 0 ? value : CONNECTION_DEFAULT;
        }
        cost += depth === 0 ? itemCost : DEPTH_FACTOR * itemCost;
      }
    }
    return cost;
  };
  const cost = setCost(operation.selectionSet, root, 0);
  return { cost, paged };
}

/** Paged costs that do not depend on the variables (no connection selected), per document and operation: the documents are the parse cache's and sofa's, the same objects for every request. */
const fixedPagedCosts = new WeakMap<DocumentNode, Map<string, number>>();

function pagedCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
): number {
  let fixed = fixedPagedCosts.get(document);
  if (!fixed) {
    fixed = new Map();
    fixedPagedCosts.set(document, fixed);
  }
  const known = fixed.get(operationName ?? '');
  if (known !== undefined) return known;
  const { cost, paged } = costOf(schema, document, operationName, variables);
  if (!paged) fixed.set(operationName ?? '', cost);
  return cost;
}

/**
 * The cost limits (docs/REFERENCE.md: Security). The shape is checked while validating, like the other
 * armor rules; the paged cost needs the variables, so it is checked before execution starts.
 * Both refusals are 400s before any resolver runs.
 */
export function useQueryCost(limits: CostLimits): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(
        (context: ValidationContext): ASTVisitor => ({
          Document: {
            enter(document: DocumentNode) {
              for (const d of document.definitions) {
                if (d.kind !== Kind.OPERATION_DEFINITION) continue;
                const cost = documentCost(context.getSchema(), document, d.name?.value);
                if (cost > limits.maxCost)
                  context.reportError(
                    new GraphQLError(`Query cost limit of ${limits.maxCost} exceeded, found ${Math.round(cost)}.`),
                  );
              }
            },
          },
        }),
      );
    },
    onExecute({ args, setResultAndStopExecution }) {
      const cost = pagedCost(
        args.schema,
        args.document,
        args.operationName,
        (args.variableValues ?? {}) as Record<string, unknown>,
      );
      if (cost > limits.maxPagedCost) {
        setResultAndStopExecution({
          errors: [
            badRequest(
              `Query cost limit of ${limits.maxPagedCost} for pages exceeded, found ${Math.round(cost)}: each connection counts its page size (first, default ${CONNECTION_DEFAULT}) times what each item selects. Ask for smaller pages or fewer nested connections.`,
              'first',
            ),
          ],
        });
      }
    },
  };
}
