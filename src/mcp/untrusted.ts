import { getNullableType, isListType, isObjectType, type GraphQLOutputType } from 'graphql';

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
