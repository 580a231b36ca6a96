import { ApiError } from '../errors.ts';

/**
 * The HTTP layer's one path matcher. Every hand-made route table uses it: the /v1 operations
 * and binary streams (api.ts, one match per request), the operator API, the dashboard's API and
 * the inbound hooks. A path is matched against `/segments/:params`; a known path with another
 * method is a 405 listing the methods it has, an unknown path a 404.
 */
export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

type Compiled<R> = { route: R; pattern: RegExp }[];

export class Router<R extends { method: string; path: string }> {
  /** The routes by their first segment (a path is tried only against routes that can match it); `:` holds those that start with a parameter. */
  private readonly byFirstSegment = new Map<string, Compiled<R>>();

  /** `basePath` is stripped before matching (`/v1`), and a path outside it is not found. */
  constructor(routes: readonly R[], private readonly basePath = '') {
    // A fixed segment wins over a parameter in the same place: `/pools/catalogue` before `/pools/:id`.
    for (const route of [...routes].sort((x, y) => specificity(x.path, y.path))) {
      const first = firstSegment(route.path);
      const key = first.startsWith(':') ? ':' : first;
      const bucket = this.byFirstSegment.get(key) ?? [];
      bucket.push({ route, pattern: pathPattern(route.path) });
      this.byFirstSegment.set(key, bucket);
    }
  }

  match(method: string, pathname: string): RouteMatch<R> {
    if (this.basePath && !pathname.startsWith(`${this.basePath}/`)) return { kind: 'not-found' };
    const path = pathname.slice(this.basePath.length);
    const allow: string[] = [];
    const fixed = this.byFirstSegment.get(firstSegment(path)) ?? [];
    const parameter = this.byFirstSegment.get(':');
    const candidates = parameter ? [...fixed, ...parameter] : fixed;
    for (const { route, pattern } of candidates) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (route.method === method) {
        const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]));
        return { kind: 'found', route, params };
      }
      allow.push(route.method);
    }
    return allow.length ? { kind: 'method-not-allowed', allow: [...new Set(allow)] } : { kind: 'not-found' };
  }
}

/** The answer to a request no route takes: 404, or 405 naming the methods the path has (`Allow`). */
export function noRoute(match: Exclude<RouteMatch<unknown>, { kind: 'found' }>, method: string, pathname: string): ApiError {
  if (match.kind === 'not-found') return new ApiError(404, `No route for ${method} ${pathname}.`);
  const allow = match.allow.join(', ');
  return new ApiError(405, `${method} is not allowed on ${pathname}; use ${allow}.`, { headers: { Allow: allow } });
}

/** `servers` of `/servers/:id`; empty for `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return path.slice(1, end < 0 ? path.length : end);
}

/** Negative when `a` is the more specific path: at the first segment where one has a parameter and the other not. */
function specificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i].startsWith(':');
    const pb = sb[i].startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

/** `/servers/:id/power/:action` → a pattern with named groups; a trailing slash is allowed. */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z_]\w*)/g, '(?<$1>[^/]+)')}/?$`);
}

/** A parameter as sent when it is not valid percent-encoding (the operation then refuses the value). */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
