import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
} from 'graphql';
import { ruleProblem, type InputRules } from '../core/input-rules.ts';

// The GraphQL bindings of input rules (declared on arguments, read from the built schema); the
// rules themselves and their checks are src/core/input-rules.ts, which services use without
// loading Pothos.

/** Spread into a Pothos argument's or input field's options. */
export function rules(declared: InputRules) {
  return { extensions: { inputRules: declared } };
}

/** The rules declared on an argument or input field, if any. */
export function rulesOf(arg: GraphQLArgument | GraphQLInputField): InputRules | undefined {
  return arg.extensions?.inputRules as InputRules | undefined;
}

export interface RuleProblem {
  message: string;
  path: string;
}

/** Every rule broken by a coerced value of `type` (nested input objects and lists), the value named by `path`. */
export function inputRuleProblems(
  type: GraphQLInputType,
  declared: InputRules | undefined,
  value: unknown,
  path: string,
  out: RuleProblem[] = [],
): RuleProblem[] {
  if (value === undefined || value === null) return out;
  if (declared) {
    const message = ruleProblem(declared, value, path);
    if (message) {
      out.push({ message, path: message.slice(0, message.indexOf(' ')) });
      return out;
    }
  }
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner) && Array.isArray(value)) {
    value.forEach((v, i) => {
      inputRuleProblems(inner.ofType, undefined, v, `${path}[${i}]`, out);
    });
  } else if (isInputObjectType(inner) && typeof value === 'object') {
    for (const field of Object.values(inner.getFields())) {
      inputRuleProblems(
        field.type,
        rulesOf(field),
        (value as Record<string, unknown>)[field.name],
        `${path}.${field.name}`,
        out,
      );
    }
  }
  return out;
}

const withRules = new WeakMap<GraphQLInputType, boolean>();

/** True when a value of this type may carry declared rules anywhere inside (cached per type). */
export function typeHasRules(type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return false;
  let known = withRules.get(named);
  if (known === undefined) {
    withRules.set(named, false); // a recursive input type ends here
    known = Object.values(named.getFields()).some((f) => rulesOf(f) !== undefined || typeHasRules(f.type));
    withRules.set(named, known);
  }
  return known;
}
