import type { IncomingMessage } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError, apiErrorOf } from '../errors.ts';
import { authenticate, type Principal } from '../modules/auth/service.ts';
import { resourceUrl } from '../modules/oauth/resources.ts';
import { rateLimitHeaders } from './rate-limit.ts';
import { sessionPrincipalForHttp } from './session-auth.ts';

export interface Admission {
  principal: Principal | null;
  /** X-RateLimit-* (and Retry-After) for the response, whatever it is. */
  limitHeaders: Record<string, string>;
  /** Set when the request must be refused: bad credential (401) or over the limit (429). */
  refusal?: ApiError;
}

/**
 * The first two steps of every customer request (REST, GraphQL, MCP): resolve the Bearer
 * credential, then count the request against its per-credential limit (per client address
 * when there is no valid credential).
 */
export async function admit(app: App, req: IncomingMessage): Promise<Admission> {
  let principal: Principal | null = null;
  let refusal: ApiError | undefined;
  try {
    const path = (req.url ?? '').split('?')[0];
    const surface = path === '/mcp' ? 'mcp' : path === '/graphql' ? 'graphql' : 'rest';
    principal = await authenticate(app.prisma, headerOf(req, 'authorization'), app.clock.now(), resourceUrl(app.config.publicBaseUrl, surface));
    // The dashboard on /graphql: its session cookie plus the CSRF header, when no Bearer is given.
    if (!principal && path === '/graphql') principal = await sessionPrincipalForHttp(app, req);
    app.keyUse.record(principal);
  } catch (err) {
    refusal = apiErrorOf(err);
    if (!refusal) throw err;
  }
  const limit = await app.limits.consume('default', principal?.credentialId ?? `ip:${req.socket.remoteAddress}`);
  const limitHeaders = rateLimitHeaders(limit);
  if (!refusal && !limit.allowed) refusal = new ApiError(429, `Rate limit of ${limit.limit} requests per minute exceeded. Retry after ${limit.retryAfter} s.`);
  return { principal, limitHeaders, refusal };
}

export function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : (value ?? null);
}
