import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
} from 'graphql';
import type { Operation } from '../../schema/operation.ts';
import { badRequest } from '../../errors.ts';
import { inputProblem } from '../executor/input-errors.ts';

/**
 * The GraphQL variables of a REST call, built strictly: JSON body values pass through
 * untouched (GraphQL's own coercion then refuses `"name": 42`), and text from the path or
 * query string is converted by the argument's type ("10" → 10 for Int, only "true"/"false"
 * for Boolean); text that is no such value is refused in the words of every other refused
 * input (src/http/executor/input-errors.ts). sofa's own conversion is looser (it would read `"yes"` as false),
 * so the execution uses these, handed to the one executor (src/http/executor/).
 */
export function restVariables(
  op: Operation,
  params: Record<string, string>,
  query: URLSearchParams,
  body: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const arg of op.field.args) {
    const where = op.argLocation(arg);
    if (where === 'path') vars[arg.name] = fromText(arg, params[arg.name]);
    else if (where === 'query') {
      const values = query.getAll(arg.name);
      if (values.length)
        vars[arg.name] = isListArg(arg)
          ? values.map((v, i) => fromText(arg, v, `${arg.name}[${i}]`))
          : fromText(arg, values[values.length - 1]);
    } else if (body && Object.hasOwn(body, arg.name)) vars[arg.name] = body[arg.name];
  }
  return vars;
}

function isListArg(arg: GraphQLArgument): boolean {
  return isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type);
}

function fromText(arg: GraphQLArgument, text: string, path = arg.name): unknown {
  const named = getNamedType(arg.type as GraphQLInputType);
  if (isEnumType(named) || !isScalarType(named)) return text;
  let value: unknown = text;
  if (named.name === 'Int' || named.name === 'Float') value = text.trim() === '' ? text : Number(text);
  else if (named.name === 'Boolean') value = text === 'true' ? true : text === 'false' ? false : text;
  else return text;
  const problem = inputProblem(named, value, path);
  if (problem) throw badRequest(problem, arg.name);
  return value;
}
