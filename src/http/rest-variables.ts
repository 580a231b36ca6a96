import { getNamedType, isEnumType, isListType, isNonNullType, isScalarType, type GraphQLArgument, type GraphQLInputType } from 'graphql';
import { badRequest } from '../errors.ts';
import type { Operation } from '../schema/operation.ts';

/**
 * The GraphQL variables of a REST call, built strictly: JSON body values pass through
 * untouched (GraphQL's own coercion then refuses `"name": 42`), and text from the path or
 * query string is converted by the argument's type ("10" → 10 for Int, only "true"/"false"
 * for Boolean). sofa's own conversion is looser (it would read `"yes"` as false), so the
 * execution uses these instead (see plugins/rest-variables.ts).
 */
export function restVariables(op: Operation, params: Record<string, string>, query: URLSearchParams, body: Record<string, unknown> | undefined): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const arg of op.field.args) {
    const where = op.argLocation(arg);
    if (where === 'path') vars[arg.name] = fromText(arg, params[arg.name]);
    else if (where === 'query') {
      const values = query.getAll(arg.name);
      if (values.length) vars[arg.name] = isListArg(arg) ? values.map((v) => fromText(arg, v, true)) : fromText(arg, values[values.length - 1]);
    } else if (body && Object.hasOwn(body, arg.name)) vars[arg.name] = body[arg.name];
  }
  return vars;
}

function isListArg(arg: GraphQLArgument): boolean {
  return isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type);
}

function fromText(arg: GraphQLArgument, text: string, item = false): unknown {
  const named = getNamedType(arg.type as GraphQLInputType);
  if (isEnumType(named) || !isScalarType(named)) return text;
  switch (named.name) {
    case 'Int':
    case 'Float': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw badRequest(`${arg.name} must be a number${item ? ' list' : ''}.`, arg.name);
      return n;
    }
    case 'Boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw badRequest(`${arg.name} must be true or false.`, arg.name);
    default:
      return text;
  }
}
