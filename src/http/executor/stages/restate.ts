import {
  getNamedType,
  getOperationAST,
  isInputObjectType,
  Kind,
  locatedError,
  type ExecutionArgs,
  type GraphQLArgument,
  type GraphQLError,
  type GraphQLField,
  type GraphQLInputField,
} from 'graphql';
import {
  ApiError,
  apiErrorOf,
  badRequest,
  codeOf,
  headersOf,
  lacksScope,
  paramOf,
  unauthorized,
} from '../../../errors.ts';
import type { RequestContext } from '../../../schema/context.ts';
import { InputRuleRefusal, refusedArguments } from '../../../schema/input-schemas.ts';
import type { OperationMeta } from '../../../schema/operation.ts';
import { isRestProjection } from '../../../schema/rest-projection.ts';
import { fallbackVariableMessage, isVariableError, variableProblems } from '../input-errors.ts';
import type { OperationCall } from '../call.ts';

/**
 * Refused input in the API's words, one 400 per problem naming the value by its path, so REST,
 * GraphQL (variables or literals) and MCP tool calls say the same:
 * - variables refused by GraphQL's input coercion (see input-errors.ts), one per variable;
 * - values breaking their declared rules (refused by @pothos/plugin-validation before the
 *   resolver runs, schema/input-schemas.ts): every refusal of the field's arguments. The
 *   plugin checks values before scope-auth's check; a field the credential may not call is
 *   refused for that (401 or 403), whatever its values, as if the values were never looked at;
 * - a service's refusal of a value (`badRequest(message, 'domain_id')`) names it as REST does;
 *   in a GraphQL document of the client's, the value is named as GraphQL calls it (`domainId`).
 */
export function restate(call: OperationCall): void {
  const result = call.result;
  const errors = result?.errors;
  if (!result || !errors?.length) return;
  const { compiled, variables, context } = call;
  const args = {
    schema: compiled.schema,
    document: compiled.document,
    operationName: compiled.operationName,
    variableValues: variables,
    contextValue: context,
  } as ExecutionArgs;
  if (errors.some(isVariableError)) {
    const problems = variableProblems(args.schema, args.document, args.operationName, variables);
    const others = errors.filter((e) => !isVariableError(e));
    const restated = problems.length
      ? problems.map((message) => badRequest(message, message.split(' ', 1)[0]))
      : errors.filter(isVariableError).map((e: GraphQLError) => badRequest(fallbackVariableMessage(e.message)));
    call.result = { ...result, errors: [...restated, ...others] };
  } else if (errors.some((e) => apiErrorOf(e) instanceof InputRuleRefusal)) {
    call.result = { ...result, errors: errors.flatMap((e) => restateRefusal(args, e)) };
  } else if (errors.some(refusedValue) && !isRestProjection(args.document)) {
    call.result = { ...result, errors: errors.map((e) => inGraphQLNames(args, e)) };
  }
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

/**
 * A service's refusal at a root field, its value named by the GraphQL path of the argument: each
 * segment of the REST path (`domain_id`, `jobs[0].command`) that an argument or input field
 * declares as its `restName` becomes its GraphQL name, in `field` and where the message says it.
 */
function inGraphQLNames(args: ExecutionArgs, error: GraphQLError): GraphQLError {
  const refusal = apiErrorOf(error);
  const param = refusedValue(error);
  if (!refusal || !param || error.path?.length !== 1) return error;
  const field = rootField(args, String(error.path[0]));
  const named = field && graphqlPath(field, param);
  if (!named || named === param) return error;
  const said = new RegExp(`(^|[^\\w.])${param.replace(/[.[\]]/g, '\\$&')}(?![\\w])`, 'g');
  const restated = new ApiError(refusal.status, refusal.message.replace(said, `$1${named}`), {
    field: named,
    code: codeOf(refusal),
    headers: headersOf(refusal),
  });
  return locatedError(restated, error.nodes, error.path);
}

/** The value an API error names (its `param`), if any. */
function refusedValue(error: GraphQLError): string | undefined {
  const refusal = apiErrorOf(error);
  return refusal ? paramOf(refusal) : undefined;
}

/** A REST path of a field's argument value (`jobs[0].command`) in GraphQL's names; undefined when it names no argument. */
function graphqlPath(field: GraphQLField<unknown, unknown>, restPath: string): string | undefined {
  const restNamed = (f: GraphQLArgument | GraphQLInputField) =>
    (f.extensions?.restName as string | undefined) ?? f.name;
  let fields: readonly (GraphQLArgument | GraphQLInputField)[] = field.args;
  let out = '';
  for (const segment of restPath.match(/\[\d+\]|[^.[\]]+/g) ?? []) {
    if (segment.startsWith('[')) {
      out += segment;
      continue;
    }
    const found = fields.find((f) => restNamed(f) === segment);
    if (!found) return undefined;
    out += out ? `.${found.name}` : found.name;
    const type = getNamedType(found.type);
    fields = isInputObjectType(type) ? Object.values(type.getFields()) : [];
  }
  return out;
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
