import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLType,
  type GraphQLArgument,
  type GraphQLInputField,
} from 'graphql';
import { fieldExample, inputExample } from './examples.ts';
import { schemaOf } from './input-schemas.ts';
import { keywordsOf, type InputKeywords } from '../core/input-schemas.ts';

export type JsonSchema = Record<string, unknown>;

export interface SchemaOptions {
  /** Where named object and input types live as `$ref`s (OpenAPI's components). */
  refBase?: string;
  /** Inline named types instead (MCP schemas); a type already being inlined ends as `{}`. */
  inline?: boolean;
  /** Print each scalar property's example (`examples: [value]`, derived in examples.ts). */
  examples?: boolean;
  /**
   * Types only: no descriptions, formats, `required` or `additionalProperties` (MCP output
   * schemas: what an agent needs to read a result, at the least cost to its context).
   */
  lean?: boolean;
  /** The types being inlined, outermost first: the guard against a type that holds itself. */
  inlining?: readonly string[];
}

const SCALARS: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) for a GraphQL type. Named object and input
 * types become `$ref`s under `refBase` unless `inline` is set (MCP tool inputs are inlined).
 */
export function jsonSchemaOf(type: GraphQLType, opts: SchemaOptions = {}): JsonSchema {
  if (isNonNullType(type)) return nonNullSchemaOf(type.ofType, opts);
  return nullable(nonNullSchemaOf(type, opts));
}

/** A nullable value: `type: [t, 'null']`, or `anyOf` with null for a `$ref`. */
function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (schema.$ref) return { anyOf: [schema, { type: 'null' }] };
  return schema;
}

function nonNullSchemaOf(type: GraphQLType, opts: SchemaOptions): JsonSchema {
  if (isListType(type)) return { type: 'array', items: jsonSchemaOf(type.ofType, opts) };
  if (isScalarType(type)) {
    if (opts.lean) return SCALARS[type.name]?.type ? { type: SCALARS[type.name].type } : {};
    return {
      ...(SCALARS[type.name] ?? {}),
      ...(type.description && !SCALARS[type.name] ? { description: type.description } : {}),
    };
  }
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  if ((isObjectType(type) || isInputObjectType(type) || isInterfaceType(type)) && !opts.inline)
    return { $ref: `${opts.refBase ?? '#/components/schemas/'}${type.name}` };
  if (isInputObjectType(type) || isObjectType(type) || isInterfaceType(type))
    return opts.inlining?.includes(type.name) ? {} : objectSchemaOf(type, opts);
  if (isUnionType(type)) return { oneOf: type.getTypes().map((t) => jsonSchemaOf(t, opts)) };
  return {};
}

/** The schema of an object or input object type's fields. */
export function objectSchemaOf(type: GraphQLNamedType, opts: SchemaOptions = {}): JsonSchema {
  if (!isObjectType(type) && !isInputObjectType(type) && !isInterfaceType(type)) return nonNullSchemaOf(type, opts);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const inner = opts.inline ? { ...opts, inlining: [...(opts.inlining ?? []), type.name] } : opts;
  const describe = !opts.lean;
  for (const field of Object.values(type.getFields())) {
    properties[field.name] = isInputObjectType(type)
      ? inputSchemaOf(field as GraphQLInputField, {
          ...inner,
          example: opts.examples ? inputExample(field as GraphQLInputField, type.name) : undefined,
        })
      : withExample(
          withDescription(
            withValues(jsonSchemaOf(field.type as GraphQLOutputType, inner), field, opts),
            describe ? field.description : undefined,
          ),
          opts.examples ? fieldExample(field as never, type) : undefined,
        );
    // An output object is always sent whole (sofa selects every field; a null one is present as
    // null), so every field is required and a nullable one's type admits null. An input field is
    // required when it is non-null without a default.
    if (
      isInputObjectType(type)
        ? isNonNullType(field.type) && (field as { defaultValue?: unknown }).defaultValue === undefined
        : true
    )
      required.push(field.name);
  }
  return {
    type: 'object',
    ...(type.description && describe ? { description: type.description } : {}),
    properties,
    ...(required.length && !opts.lean ? { required } : {}),
    ...(opts.lean ? {} : { additionalProperties: false }),
  };
}

/**
 * A String field whose values are a fixed set (`values(...)` on the field, src/schema/examples.ts)
 * as `enum`, with null when the field is nullable. Lean schemas (MCP listings) leave it out.
 */
function withValues(
  schema: JsonSchema,
  field: { type: GraphQLType; extensions?: unknown },
  opts: SchemaOptions,
): JsonSchema {
  const set = (field.extensions as { values?: readonly string[] } | null | undefined)?.values;
  if (!set || opts.lean) return schema;
  return { ...schema, enum: isNonNullType(field.type) ? [...set] : [...set, null] };
}

function withDescription(schema: JsonSchema, description?: string | null): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** A scalar's (or a list of scalars') example as the JSON Schema `examples` keyword; objects hold their own. */
function withExample(schema: JsonSchema, example: unknown): JsonSchema {
  if (example === undefined || schemaHoldsObjects(schema)) return schema;
  return { ...schema, examples: [example] };
}

function schemaHoldsObjects(schema: JsonSchema): boolean {
  if (schema.$ref || schema.properties) return true;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).some(schemaHoldsObjects);
  return schema.items ? schemaHoldsObjects(schema.items as JsonSchema) : false;
}

/** The schema of an argument or input field: its type, its declared schema's keywords, its description and, when given, its example. */
export function inputSchemaOf(
  arg: GraphQLArgument | GraphQLInputField,
  opts: SchemaOptions & { example?: unknown } = {},
): JsonSchema {
  const { example, ...rest } = opts;
  const declared = schemaOf(arg);
  const schema = withValues(jsonSchemaOf(arg.type, rest), arg, rest);
  return withExample(
    withDescription(
      declared ? withKeywords(keywordsOf(declared), arg.type, schema) : schema,
      rest.lean ? undefined : arg.description,
    ),
    example,
  );
}

/**
 * The constraint keywords of a declared schema (`z.toJSONSchema`'s), added to the schema the
 * GraphQL type gives a value of `type`: the type's own keywords (`type`, `format: int32`) stay.
 */
function withKeywords(k: InputKeywords, type: GraphQLInputType, schema: JsonSchema): JsonSchema {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner) && schema.type !== undefined && schema.items) {
    return {
      ...schema,
      ...(k.minItems !== undefined ? { minItems: k.minItems } : {}),
      ...(k.maxItems !== undefined ? { maxItems: k.maxItems } : {}),
      items: withKeywords(k.items ?? {}, inner.ofType, schema.items as JsonSchema),
    };
  }
  const out: JsonSchema = { ...schema };
  for (const key of ['minLength', 'maxLength', 'pattern', 'enum', 'minimum', 'maximum', 'format'] as const)
    if (k[key] !== undefined) out[key] = k[key];
  return out;
}
