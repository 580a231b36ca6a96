import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * Text other people write reaches an agent inside tool results: a support message, a site's
 * files and logs, the paths visitors asked for, a commit message. A field that holds such text
 * is declared once (`untrusted: true`, src/schema/rest-name.ts); each tool result and resource
 * read that can carry one names where, as JSONPath (RFC 9535) into its structured content,
 * under this `_meta` key, and the server's instructions say what it means (conventions.ts).
 */
export const UNTRUSTED_META_KEY = 'cloud-account/untrusted';

/** The JSONPaths of the untrusted fields a value of `type` can hold, from `root` ('$' or '$.result'). */
export function untrustedPaths(type: GraphQLOutputType, root: string): string[] {
  const paths: string[] = [];
  const walk = (t: GraphQLOutputType, at: string, seen: ReadonlySet<string>) => {
    const inner = getNullableType(t);
    if (isListType(inner)) return walk(inner.ofType, `${at}[*]`, seen);
    if (!isObjectType(inner) || seen.has(inner.name)) return;
    const within = new Set([...seen, inner.name]);
    for (const [name, field] of Object.entries(inner.getFields())) {
      const path = `${at}.${name}`;
      if (field.extensions?.untrusted) paths.push(isListType(getNullableType(field.type)) ? `${path}[*]` : path);
      else walk(field.type, path, within);
    }
  };
  walk(type, root, new Set());
  return paths;
}

/** `_meta` naming where a result's untrusted text is; none when it can hold none. */
export function untrustedMeta(paths: readonly string[]): { _meta?: Record<string, unknown> } {
  return paths.length ? { _meta: { [UNTRUSTED_META_KEY]: paths } } : {};
}

/**
 * The JSONPaths (from `$.data`, under the document's aliases) of the untrusted fields a GraphQL
 * document selects, for code mode's answers: fragments followed, each path once. A document
 * that does not parse or names no operation selects none (it answers only errors).
 */
export function documentUntrustedPaths(schema: GraphQLSchema, query: string, operationName?: string): string[] {
  let document: ReturnType<typeof parse>;
  try {
    document = parse(query);
  } catch {
    return [];
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation =
    operationName === undefined
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return [];
  const paths = new Set<string>();
  const walk = (set: SelectionSetNode, type: GraphQLCompositeType, at: string, spread: ReadonlySet<string>) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || spread.has(fragment.name.value)) continue;
        const on = schema.getType(fragment.typeCondition.name.value);
        if (isCompositeType(on)) walk(fragment.selectionSet, on, at, new Set([...spread, fragment.name.value]));
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (isCompositeType(on)) walk(selection.selectionSet, on, at, spread);
        continue;
      }
      // A union selects only through fragments.
      if (!('getFields' in type)) continue;
      const field = type.getFields()[selection.name.value];
      if (!field) continue;
      let path = `${at}.${(selection.alias ?? selection.name).value}`;
      for (let t = getNullableType(field.type); isListType(t); t = getNullableType(t.ofType)) path += '[*]';
      const named = getNamedType(field.type);
      if (field.extensions?.untrusted) paths.add(path);
      else if (selection.selectionSet && isCompositeType(named)) walk(selection.selectionSet, named, path, spread);
    }
  };
  walk(operation.selectionSet, root, '$.data', new Set());
  return [...paths];
}
