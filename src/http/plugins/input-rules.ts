import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import type { OperationMeta } from '../../schema/operation.ts';
import { isRestProjection } from '../../schema/rest-projection.ts';
import { inputRuleProblems, rulesOf, typeHasRules, type RuleProblem } from '../../schema/input-rules.ts';

/**
 * The rules declared on arguments and input fields (schema/input-rules.ts), checked on every
 * root field's argument values before anything runs: one 400 per problem, naming the value by
 * its path. At execution, so REST (sofa), GraphQL (variables or literals) and MCP say the same.
 * Values GraphQL's own coercion refuses are left to input-errors.ts. An operation's REST
 * projection (REST and MCP tools) names its arguments by their REST names.
 */
export function useInputRules(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      // A field the credential may not call is refused by scope-auth (401/403) before its values are judged.
      const scopes = (args.contextValue as Partial<RequestContext>).principal?.scopes;
      const mayCall = (field: GraphQLField<unknown, unknown>) => {
        const meta = field.extensions?.operation as OperationMeta | undefined;
        return !meta || (scopes?.has(meta.scope) ?? false);
      };
      const problems = argumentRuleProblems(
        args.schema,
        args.document,
        args.operationName,
        args.variableValues as Record<string, unknown> | undefined,
        mayCall,
        isRestProjection(args.document),
      );
      if (problems.length) setResultAndStopExecution({ errors: problems.map((p) => badRequest(p.message, p.path)) });
    },
  };
}

function argumentRuleProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  mayCall: (field: GraphQLField<unknown, unknown>) => boolean = () => true,
  restNames = false,
): RuleProblem[] {
  const operation = getOperationAST(document, operationName);
  const root =
    operation?.operation === 'query'
      ? schema.getQueryType()
      : operation?.operation === 'mutation'
        ? schema.getMutationType()
        : undefined;
  if (!operation || !root) return [];
  const fields = rootFields(root, operation.selectionSet, document).filter(
    ([field]) => fieldHasRules(field) && mayCall(field),
  );
  if (!fields.length) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return [];
  const problems: RuleProblem[] = [];
  for (const [field, node] of fields) {
    let values: Record<string, unknown>;
    try {
      values = getArgumentValues(field, node, coerced.coerced);
    } catch {
      continue; // a literal GraphQL itself refuses: its error follows at execution
    }
    for (const arg of field.args) {
      const name = (restNames && (arg.extensions?.restName as string | undefined)) || arg.name;
      inputRuleProblems(arg.type, rulesOf(arg), values[arg.name], name, problems);
    }
  }
  return problems;
}

const fieldsWithRules = new WeakMap<GraphQLField<unknown, unknown>, boolean>();

function fieldHasRules(field: GraphQLField<unknown, unknown>): boolean {
  let known = fieldsWithRules.get(field);
  if (known === undefined) {
    known = field.args.some((a) => rulesOf(a) !== undefined || typeHasRules(a.type));
    fieldsWithRules.set(field, known);
  }
  return known;
}

/** The root fields an operation selects (through fragments too), with their definitions. */
function rootFields(
  root: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  document: DocumentNode,
  seen = new Set<string>(),
): [GraphQLField<unknown, unknown>, FieldNode][] {
  const out: [GraphQLField<unknown, unknown>, FieldNode][] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = root.getFields()[selection.name.value];
      if (field) out.push([field, selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      out.push(...rootFields(root, selection.selectionSet, document, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION)
        out.push(...rootFields(root, fragment.selectionSet, document, seen));
    }
  }
  return out;
}
