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
import { inputProblem } from '../core/input-schemas.ts';
import { ApiError } from '../errors.ts';

// The GraphQL bindings of input schemas (zod, declared on arguments and input fields, enforced by
// @pothos/plugin-validation); the wording of a refusal is src/core/input-schemas.ts's, which
// services use without loading Pothos.

/**
 * Spread into a Pothos argument's or input field's options: the schema checked by the validation
 * plugin (on the coerced value before the resolver runs, so REST, GraphQL and MCP say the same)
 * and in `extensions`, where OpenAPI and MCP read it (json-schema.ts). The plugin is handed the
 * schema behind a refinement that words its refusal as the API does (inputProblem, which states
 * a bound with its partner: "1 to 64 characters"), its path left to the plugin's issue path.
 */
export function inputSchema(schema: z.ZodType) {
  const validate = z.unknown().superRefine((value, ctx) => {
    const message = inputProblem(schema, value, '');
    if (message) ctx.addIssue({ code: 'custom', message });
  });
  return { validate, extensions: { inputSchema: schema } };
}

/** The schema declared on an argument or input field, if any. */
export function schemaOf(arg: GraphQLArgument | GraphQLInputField): z.ZodType | undefined {
  return arg.extensions?.inputSchema as z.ZodType | undefined;
}

interface InputProblem {
  message: string;
  path: string;
}

/**
 * The validation plugin's refusal (its `validationError`, builder.ts): the API's 400 naming the
 * first broken schema by its path. It keeps the arguments, so the execution's input-error stage
 * (http/executor/stages/restate.ts) can state every one, as `refusedArguments` words them.
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
 * Every schema the arguments of `field` refuse, in argument order (a value its own schema refuses
 * is not looked into); `restNames` names each argument as REST does (its `restName`, rest-name.ts).
 */
export function refusedArguments(
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  restNames = false,
): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const arg of field.args) {
    const name = (restNames && (arg.extensions?.restName as string | undefined)) || arg.name;
    inputProblems(arg.type, schemaOf(arg), args[arg.name], name, problems);
  }
  return problems;
}

/** Every refusal of a coerced value of `type` (nested input objects and lists), the value named by `path`. */
export function inputProblems(
  type: GraphQLInputType,
  declared: z.ZodType | undefined,
  value: unknown,
  path: string,
  out: InputProblem[] = [],
): InputProblem[] {
  if (value === undefined || value === null) return out;
  if (declared) {
    const message = inputProblem(declared, value, path);
    if (message) {
      out.push({ message, path: message.slice(0, message.indexOf(' ')) });
      return out;
    }
  }
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner) && Array.isArray(value)) {
    value.forEach((v, i) => {
      inputProblems(inner.ofType, undefined, v, `${path}[${i}]`, out);
    });
  } else if (isInputObjectType(inner) && typeof value === 'object') {
    for (const field of Object.values(inner.getFields())) {
      inputProblems(
        field.type,
        schemaOf(field),
        (value as Record<string, unknown>)[field.name],
        `${path}.${field.name}`,
        out,
      );
    }
  }
  return out;
}
