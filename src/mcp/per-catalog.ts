import type { Tool } from './catalog.ts';

/** Values kept per catalogue: selections differ by scope set, so a stream of unusual sets must not grow the memo. */
const VALUES_PER_CATALOG = 256;

/**
 * `make` memoised per catalogue and key. Each request's MCP server is made fresh; what it offers
 * a credential's selection (its listing, resources, prompts) is made once and shared, read-only.
 */
export function perCatalog<A, V>(
  keyOf: (arg: A) => string,
  make: (catalog: readonly Tool[], arg: A) => V,
): (catalog: readonly Tool[], arg: A) => V {
  const memo = new WeakMap<readonly Tool[], Map<string, V>>();
  return (catalog, arg) => {
    let byKey = memo.get(catalog);
    if (!byKey) {
      byKey = new Map();
      memo.set(catalog, byKey);
    }
    const key = keyOf(arg);
    let value = byKey.get(key);
    if (value === undefined) {
      if (byKey.size >= VALUES_PER_CATALOG) byKey.clear();
      value = make(catalog, arg);
      byKey.set(key, value);
    }
    return value;
  };
}

const scopeKeys = new WeakMap<ReadonlySet<string>, string>();

/** A scope set as a key; a cached principal's set is the same object from request to request, so its key is made once. */
export function scopesKey(scopes: ReadonlySet<string>): string {
  let key = scopeKeys.get(scopes);
  if (key === undefined) {
    key = [...scopes].sort().join(' ');
    scopeKeys.set(scopes, key);
  }
  return key;
}
