import type { GraphQLSchema } from 'graphql';
import { listOperations, type Operation } from '../schema/operation.ts';

export type RouteMatch =
  | { kind: 'found'; operation: Operation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/**
 * Matches REST requests to operations, from the same metadata sofa serves: unknown paths
 * get 404 and known paths with the wrong method 405 before anything else runs.
 */
export class RestRoutes {
  private readonly routes: { operation: Operation; pattern: RegExp }[];

  constructor(schema: GraphQLSchema, private readonly basePath = '/v1') {
    this.routes = listOperations(schema).map((operation) => ({
      operation,
      pattern: new RegExp(`^${operation.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z_]\w*)/g, '(?<$1>[^/]+)')}/?$`),
    }));
  }

  match(method: string, pathname: string): RouteMatch {
    if (!pathname.startsWith(`${this.basePath}/`)) return { kind: 'not-found' };
    const path = pathname.slice(this.basePath.length);
    const allow: string[] = [];
    for (const { operation, pattern } of this.routes) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (operation.method === method) {
        const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]));
        return { kind: 'found', operation, params };
      }
      allow.push(operation.method);
    }
    return allow.length ? { kind: 'method-not-allowed', allow: [...new Set(allow)] } : { kind: 'not-found' };
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
