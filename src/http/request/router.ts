import { ApiError } from '../../errors.ts';

/**
 * The HTTP layer's one path matcher. Every hand-made route table uses it: the /v1 operations
 * and binary streams (pipeline/route.ts, one match per request), the operator API, the dashboard's API and
 * the inbound hooks. A path is matched against `/segments/:params`; a known path with another
 * method is a 405 listing the methods it has, an unknown path a 404.
 */
export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

type Compiled<R> = { route: R; pattern: RegExp }[];

export class Router<R extends { method: string; path: string }> {
  /** By a path's first segment, the routes that can match it, in order: those of that segment, then those that start with a parameter. */
  private readonly byFirstSegment = new Map<string, Compiled<R>>();
  /** The routes that start with a parameter: all a path whose first segment no route names can match. */
  private readonly parameterFirst: Compiled<R>;

  /** `basePath` is stripped before matching (`/v1`), and a path outside it is not found. */
  constructor(
    routes: readonly R[],
    private readonly basePath = '',
  ) {
    // A fixed segment wins over a parameter in the same place: `/pools/catalogue` before `/pools/:id`.
    const compiled = [...routes]
      .sort((x, y) => specificity(x.path, y.path))
      .map((route) => ({ route, pattern: pathPattern(route.path) }));
    this.parameterFirst = compiled.filter((c) => firstSegment(c.route.path).startsWith(':'));
    for (const c of compiled) {
      const first = firstSegment(c.route.path);
      if (!first.startsWith(':') && !this.byFirstSegment.has(first)) {
        this.byFirstSegment.set(first, [
          ...compiled.filter((d) => firstSegment(d.route.path) === first),
          ...this.parameterFirst,
        ]);
      }
    }
  }

  match(method: string, pathname: string): RouteMatch<R> {
    if (this.basePath && !pathname.startsWith(`${this.basePath}/`)) return { kind: 'not-found' };
    const path = pathname.slice(this.basePath.length);
    const allow: string[] = [];
    const candidates = this.byFirstSegment.get(firstSegment(path)) ?? this.parameterFirst;
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
export function noRoute(
  match: Exclude<RouteMatch<unknown>, { kind: 'found' }>,
  method: string,
  pathname: string,
): ApiError {
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
