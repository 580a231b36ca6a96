import {
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
} from 'graphql';
import { z } from 'zod';
import { ruleProblem, type InputRules } from '../core/input-rules.ts';
import { ApiError } from '../errors.ts';

// The GraphQL bindings of input rules (declared on arguments and input fields, enforced by
// @pothos/plugin-validation); the rules themselves and their checks are src/core/input-rules.ts,
// which services use without loading Pothos.

/**
 * Spread into a Pothos argument's or input field's options: the rules as the validation
 * plugin's schema (checked on the coerced value before the resolver runs, so REST, GraphQL and
 * MCP say the same) and in `extensions`, where OpenAPI and MCP read them (json-schema.ts).
 */
export function rules(declared: InputRules) {
  // The issue's message is the sentence without its path ("[1] must be …"): inputRuleRefusal prefixes it.
  const validate = z.unknown().superRefine((value, ctx) => {
    const message = ruleProblem(declared, value, '');
    if (message) ctx.addIssue({ code: 'custom', message });
  });
  return { validate, extensions: { inputRules: declared } };
}

/** The rules declared on an argument or input field, if any. */
export function rulesOf(arg: GraphQLArgument | GraphQLInputField): InputRules | undefined {
  return arg.extensions?.inputRules as InputRules | undefined;
}

interface RuleProblem {
  message: string;
  path: string;
}

/**
 * The validation plugin's refusal (its `validationError`, builder.ts): the API's 400 naming the
 * first broken rule by its path. It keeps the arguments, so the execution's input-error stage
 * (http/executor/stages/restate.ts) can state every broken rule, as `refusedArguments` words them.
 */
export class InputRuleRefusal extends ApiError {
  constructor(
    message: string,
    path: string,
    readonly args: Record<string, unknown>,
  ) {
    super(400, message, { field: path });
  }
}

type IssuePath = readonly (PropertyKey | { key: PropertyKey })[] | undefined;

export function inputRuleRefusal(
  failure: { issues: readonly { message: string; path?: IssuePath }[] },
  args: Record<string, unknown>,
): InputRuleRefusal {
  const [first] = failure.issues;
  const path = (first.path ?? [])
    .map((p) => (typeof p === 'object' ? p.key : p))
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i ? `.${String(key)}` : String(key)))
    .join('');
  const message = `${path}${first.message}`;
  return new InputRuleRefusal(message, message.slice(0, message.indexOf(' ')), args);
}

/**
 * Every rule the arguments of `field` break, in argument order (a value breaking its own rule is
 * not looked into); `restNames` names each argument as REST does (its `restName`, rest-name.ts).
 */
export function refusedArguments(
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  restNames = false,
): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const arg of field.args) {
    const name = (restNames && (arg.extensions?.restName as string | undefined)) || arg.name;
    inputRuleProblems(arg.type, rulesOf(arg), args[arg.name], name, problems);
  }
  return problems;
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
