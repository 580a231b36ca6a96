import { getOperationAST, Kind, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { apiErrorOf, badRequest, lacksScope, unauthorized } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { InputRuleRefusal, refusedArguments } from '../../schema/input-rules.ts';
import type { OperationMeta } from '../../schema/operation.ts';
import { isRestProjection } from '../../schema/rest-projection.ts';
import { fallbackVariableMessage, isVariableError, variableProblems } from '../input-errors.ts';

/**
 * Refused input in the API's words, one 400 per problem naming the value by its path. At
 * execution, so REST (sofa), GraphQL (variables or literals) and MCP tool calls say the same:
 * - variables refused by GraphQL's input coercion (see input-errors.ts), one per variable;
 * - values breaking their declared rules (refused by @pothos/plugin-validation before the
 *   resolver runs, schema/input-rules.ts): every broken rule of the field's arguments. The
 *   plugin checks values before scope-auth's check; a field the credential may not call is
 *   refused for that (401 or 403), whatever its values, as if the values were never looked at.
 */
export function useInputErrorMessages(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          const errors = (result as ExecutionResult).errors;
          if (errors?.some(isVariableError)) {
            // Read now: the REST variables plugin swaps them in at execution.
            const problems = variableProblems(args.schema, args.document, args.operationName, args.variableValues);
            const others = errors.filter((e) => !isVariableError(e));
            const restated = problems.length
              ? problems.map((message) => badRequest(message, message.split(' ', 1)[0]))
              : errors.filter(isVariableError).map((e: GraphQLError) => badRequest(fallbackVariableMessage(e.message)));
            setResult({ ...(result as ExecutionResult), errors: [...restated, ...others] });
          } else if (errors?.some((e) => apiErrorOf(e) instanceof InputRuleRefusal)) {
            setResult({ ...(result as ExecutionResult), errors: errors.flatMap((e) => restateRefusal(args, e)) });
          }
        },
      };
    },
  };
}

function restateRefusal(args: ExecutionArgs, error: GraphQLError): GraphQLError[] {
  const refusal = apiErrorOf(error);
  if (!(refusal instanceof InputRuleRefusal) || error.path?.length !== 1) return [error];
  const field = rootField(args, String(error.path[0]));
  if (!field) return [error];
  const meta = field.extensions?.operation as OperationMeta | undefined;
  const principal = (args.contextValue as Partial<RequestContext>).principal;
  // What scope-auth would have answered had it looked first (builder.ts unauthorizedError).
  if (meta && !principal) return [unauthorized()];
  if (meta && !principal?.scopes.has(meta.scope)) return [lacksScope(meta.scope)];
  // An operation's REST projection (REST and MCP tools) names its arguments by their REST names.
  const problems = refusedArguments(field, refusal.args, isRestProjection(args.document));
  return problems.length ? problems.map((p) => new InputRuleRefusal(p.message, p.path, refusal.args)) : [error];
}

/** The root field a response key names (its alias or name), fragments followed. */
function rootField(args: ExecutionArgs, responseKey: string) {
  const operation = getOperationAST(args.document, args.operationName);
  const root = operation?.operation === 'mutation' ? args.schema.getMutationType() : args.schema.getQueryType();
  if (!operation || !root) return undefined;
  const pending = [operation.selectionSet];
  const seen = new Set<string>();
  for (let set = pending.pop(); set; set = pending.pop()) {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD && (sel.alias ?? sel.name).value === responseKey)
        return root.getFields()[sel.name.value];
      if (sel.kind === Kind.INLINE_FRAGMENT) pending.push(sel.selectionSet);
      else if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const fragment = args.document.definitions.find(
          (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === sel.name.value,
        );
        if (fragment?.kind === Kind.FRAGMENT_DEFINITION) pending.push(fragment.selectionSet);
      }
    }
  }
  return undefined;
}
