import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { isMcpTool, type OperationMeta } from '../schema/operation.ts';

/**
 * What code mode's graphql_schema_search shows: the part of the schema a credential can use.
 * Root fields are those its scopes allow and MCP offers (operation metadata: isMcpTool; queries only in a read-only session; subscriptions
 * never: graphql_execute refuses them); types are those reachable from these root fields.
 */
export interface SchemaView {
  roots: GraphQLObjectType[];
  rootFields: Map<GraphQLObjectType, GraphQLField<unknown, unknown>[]>;
  types: Map<string, GraphQLNamedType>;
}

export function schemaView(schema: GraphQLSchema, scopes: ReadonlySet<string>, readOnly: boolean): SchemaView {
  const roots = [schema.getQueryType(), readOnly ? null : schema.getMutationType()].filter(
    (t): t is GraphQLObjectType => !!t,
  );
  const rootFields = new Map<GraphQLObjectType, GraphQLField<unknown, unknown>[]>();
  const types = new Map<string, GraphQLNamedType>();
  const visit = (type: GraphQLNamedType) => {
    if (types.has(type.name) || isSpecifiedScalarType(type) || isIntrospectionType(type)) return;
    types.set(type.name, type);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) visitField(field);
      if (isInterfaceType(type)) for (const impl of schema.getPossibleTypes(type)) visit(impl);
    } else if (isUnionType(type)) {
      for (const member of type.getTypes()) visit(member);
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) visit(getNamedType(field.type));
    }
  };
  const visitField = (field: GraphQLField<unknown, unknown>) => {
    visit(getNamedType(field.type));
    for (const arg of field.args) visit(getNamedType(arg.type));
  };
  for (const root of roots) {
    const allowed = Object.values(root.getFields()).filter((f) => {
      const meta = f.extensions?.operation as OperationMeta | undefined;
      return !!meta && isMcpTool(meta) && scopes.has(meta.scope);
    });
    if (!allowed.length) continue;
    rootFields.set(root, allowed);
    allowed.forEach(visitField);
  }
  return { roots: [...rootFields.keys()], rootFields, types };
}

function scopeOf(field: GraphQLField<unknown, unknown>): string | undefined {
  return (field.extensions?.operation as OperationMeta | undefined)?.scope;
}

type Described = { description?: string };
const described = (description: string | null | undefined): Described => (description ? { description } : {});

function argumentOf(arg: GraphQLArgument | GraphQLInputField) {
  return {
    name: arg.name,
    type: String(arg.type),
    ...described(arg.description),
    ...(arg.defaultValue !== undefined ? { defaultValue: arg.defaultValue } : {}),
  };
}

/** A field as search results and type lookups show it; a root field names the scope it needs. */
function fieldOf(field: GraphQLField<unknown, unknown>, withName: { name: string } | { coordinate: string }) {
  const scope = scopeOf(field);
  return {
    ...withName,
    type: String(field.type),
    ...described(field.description),
    ...(field.args.length ? { args: field.args.map(argumentOf) } : {}),
    ...(scope ? { scope } : {}),
  };
}

/** One type by exact name with all its fields (values, members); undefined when the view lacks it. */
export function describeType(view: SchemaView, name: string) {
  const type = view.roots.find((r) => r.name === name) ?? view.types.get(name);
  if (!type) return undefined;
  const head = { kind: 'type' as const, name: type.name, typeKind: typeKindOf(type), ...described(type.description) };
  if (isObjectType(type) || isInterfaceType(type)) {
    const fields = (isObjectType(type) && view.rootFields.get(type)) || Object.values(type.getFields());
    return { ...head, fields: fields.map((f) => fieldOf(f, { name: f.name })) };
  }
  if (isInputObjectType(type)) return { ...head, fields: Object.values(type.getFields()).map(argumentOf) };
  if (isEnumType(type))
    return { ...head, values: type.getValues().map((v) => ({ name: v.name, ...described(v.description) })) };
  if (isUnionType(type)) return { ...head, possibleTypes: type.getTypes().map((t) => t.name) };
  return head;
}

function typeKindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'OBJECT';
  if (isInterfaceType(type)) return 'INTERFACE';
  if (isUnionType(type)) return 'UNION';
  if (isEnumType(type)) return 'ENUM';
  if (isInputObjectType(type)) return 'INPUT_OBJECT';
  return 'SCALAR';
}

interface Entry {
  /** Sort order among equal scores: operations first, then types, fields, input fields. */
  rank: number;
  key: string;
  name: string;
  description: string;
  render(): object;
}

function entriesOf(view: SchemaView): Entry[] {
  const entries: Entry[] = [];
  for (const root of view.roots) {
    for (const field of view.rootFields.get(root)!) {
      const coordinate = `${root.name}.${field.name}`;
      entries.push({
        rank: 0,
        key: coordinate,
        name: field.name,
        description: field.description ?? '',
        render: () => ({ kind: 'field', ...fieldOf(field, { coordinate }) }),
      });
    }
  }
  for (const type of view.types.values()) {
    entries.push({
      rank: 1,
      key: type.name,
      name: type.name,
      description: type.description ?? '',
      render: () => summaryOf(type),
    });
    const fields = isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
    for (const field of fields) {
      const coordinate = `${type.name}.${field.name}`;
      entries.push({
        rank: 2,
        key: coordinate,
        name: field.name,
        description: field.description ?? '',
        render: () => ({ kind: 'field', ...fieldOf(field, { coordinate }) }),
      });
    }
    const inputFields = isInputObjectType(type) ? Object.values(type.getFields()) : [];
    for (const field of inputFields) {
      const coordinate = `${type.name}.${field.name}`;
      entries.push({
        rank: 3,
        key: coordinate,
        name: field.name,
        description: field.description ?? '',
        render: () => {
          const { name: _, ...rest } = argumentOf(field);
          return { kind: 'inputField', coordinate, ...rest };
        },
      });
    }
  }
  return entries;
}

/** A type in a result list: its fields, values or members by name only (describeType has them whole). */
function summaryOf(type: GraphQLNamedType): object {
  const head = { kind: 'type', name: type.name, typeKind: typeKindOf(type), ...described(type.description) };
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))
    return { ...head, fields: Object.keys(type.getFields()) };
  if (isEnumType(type)) return { ...head, values: type.getValues().map((v) => v.name) };
  if (isUnionType(type)) return { ...head, possibleTypes: type.getTypes().map((t) => t.name) };
  return head;
}

/** `serverPower` → server, power; `DNSRecord` → dns, record. */
function nameWords(name: string): string[] {
  return (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [name]).map((w) => stem(w.toLowerCase()));
}

/** Plural and singular match each other (`servers` finds `server`). */
function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
}

export function queryWords(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    ),
  ];
}

/**
 * How well an entry matches the words: per word the best of whole name (10, or 8 as plural or
 * singular), a word of the name (6), part of the name (3), a word of the description (1);
 * summed over the words.
 */
function scoreOf(entry: Entry, words: readonly string[]): number {
  const name = entry.name.toLowerCase();
  const parts = nameWords(entry.name);
  const description = entry.description.toLowerCase();
  let score = 0;
  for (const word of words) {
    const stemmed = stem(word);
    if (name === word) score += 10;
    else if (stem(name) === stemmed) score += 8;
    else if (parts.includes(stemmed)) score += 6;
    else if (stemmed.length >= 3 && name.includes(stemmed)) score += 3;
    else if (new RegExp(`\\b${stemmed}`).test(description)) score += 1;
  }
  return score;
}

/** The entries matching any of the words, best first; ties: operations, types, fields, then by name. */
export function searchSchema(view: SchemaView, words: readonly string[]): object[] {
  return entriesOf(view)
    .map((entry) => ({ entry, score: scoreOf(entry, words) }))
    .filter((m) => m.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.entry.rank - b.entry.rank ||
        (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0),
    )
    .map((m) => m.entry.render());
}
