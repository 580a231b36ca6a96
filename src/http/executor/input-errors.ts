import {
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  valueFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';

/**
 * The one wording of a refused input value, shared by REST, GraphQL and MCP: graphql-js and
 * graphql-jit describe a variable that fails coercion in GraphQL's terms ("Expected type
 * PowerAction.", "String cannot represent a non string value: 42"). These say what the value
 * must be, naming it by its path in the request (`name`, `items[2].amountUsdCents`).
 */
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** What is wrong with `value` as a `type`, as a sentence starting with `path`; undefined when it is fine. */
export function inputProblem(type: GraphQLInputType, value: unknown, path: string): string | undefined {
  if (isNonNullType(type)) {
    if (value === undefined || value === null) return `${path} is required.`;
    return inputProblem(type.ofType, value, path);
  }
  if (value === undefined || value === null) return undefined;
  if (isListType(type)) {
    // A single value where a list is expected is a list of one (GraphQL's input coercion).
    if (!Array.isArray(value)) return inputProblem(type.ofType, value, path);
    for (let i = 0; i < value.length; i++) {
      const problem = inputProblem(type.ofType, value[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return `${path} must be an object.`;
    const fields = type.getFields();
    const unknown = Object.keys(value).find((key) => !Object.hasOwn(fields, key));
    if (unknown !== undefined) return `${path} has no field ${unknown}.`;
    for (const field of Object.values(fields)) {
      const v = (value as Record<string, unknown>)[field.name];
      if (v === undefined && field.defaultValue !== undefined) continue;
      const problem = inputProblem(field.type, v, `${path}.${field.name}`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isEnumType(type)) {
    if (typeof value === 'string' && type.getValue(value)) return undefined;
    return `${path} must be one of ${type
      .getValues()
      .map((v) => v.name)
      .join(', ')}.`;
  }
  switch (type.name) {
    case 'String':
      return typeof value === 'string' ? undefined : `${path} must be a string.`;
    case 'ID':
      return typeof value === 'string' || Number.isInteger(value) ? undefined : `${path} must be a string.`;
    case 'Boolean':
      return typeof value === 'boolean' ? undefined : `${path} must be true or false.`;
    case 'Float':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${path} must be a number.`;
    case 'Int':
      if (!Number.isInteger(value)) return `${path} must be an integer.`;
      return (value as number) < INT_MIN || (value as number) > INT_MAX
        ? `${path} must be an integer from ${INT_MIN} to ${INT_MAX}.`
        : undefined;
  }
  // The API's own scalars state their rule as "Expected <what it must be>.".
  try {
    const parsed: unknown = type.parseValue(value);
    return parsed === undefined || Number.isNaN(parsed) ? `${path} is invalid.` : undefined;
  } catch (err) {
    const rule = /^Expected (.+?)\.?$/.exec((err as Error).message ?? '');
    return rule ? `${path} must be ${rule[1]}.` : `${path} is invalid.`;
  }
}

/** A variable error of GraphQL's coercion (before any field runs), from graphql-js or graphql-jit. */
export function isVariableError(error: { message: string; path?: readonly unknown[] }): boolean {
  return !error.path && /^Variable "\$\w+"/.test(error.message);
}

/** The problems of an operation's variables, one sentence per refused variable. */
export function variableProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): string[] {
  const operation = getOperationAST(document, operationName);
  const problems: string[] = [];
  for (const def of operation?.variableDefinitions ?? []) {
    const type = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const name = def.variable.name.value;
    let value = variables?.[name];
    if (value === undefined && def.defaultValue) value = valueFromAST(def.defaultValue, type);
    const problem = inputProblem(type, value, name);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** When the walk above finds nothing to say (it agrees with the value): the variable's name only. */
export function fallbackVariableMessage(message: string): string {
  const name = /^Variable "\$(\w+)"/.exec(message)?.[1];
  return name ? `${name} is invalid.` : message;
}
