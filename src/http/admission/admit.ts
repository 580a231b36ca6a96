import type { IncomingMessage } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf } from '../../errors.ts';
import { authenticate, type Principal } from '../../modules/auth/service.ts';
import { resourceUrl } from '../../modules/oauth/resources.ts';
import { clientAddress } from '../request/client-address.ts';
import { rateLimitHeaders, type RateLimitResult } from './rate-limit.ts';
import { sessionPrincipalForBinary, sessionPrincipalForHttp } from '../dashboard/session-auth.ts';

export interface Admission {
  principal: Principal | null;
  /** X-RateLimit-* (and Retry-After) for the response, whatever it is. */
  limitHeaders: Record<string, string>;
  /** Set when the request must be refused: bad credential (401) or over the limit (429). */
  refusal?: ApiError;
  /**
   * Set when counting waited for the outcome (a conditional read): call it with the response's
   * status. A 304 spends nothing; anything else spends the point now, and is refused (429) when
   * another request took the last one meanwhile.
   */
  countOutcome?: (status: number) => Promise<Counted>;
  /**
   * Set when the request is an MCP message, whose cost its body tells (the count stage): call it
   * with whether the message spends a request point. One that does not is answered with the
   * request budget's standing, unspent.
   */
  countMessage?: (spendsPoint: boolean) => Promise<Counted>;
}

type Counted = { limitHeaders: Record<string, string>; refusal?: ApiError };

/**
 * The first two steps of every customer request (REST, GraphQL, MCP): resolve the Bearer
 * credential, then count the request against its per-credential limit and its account's
 * ceiling (rate-limit.ts consumeRequest; per client address when there is no valid credential).
 *
 * `credential: 'session'`: the dashboard's copy of a binary stream (pipeline/route.ts), which takes
 * the session cookie and its CSRF header instead of a Bearer credential (dashboard/session-auth.ts).
 *
 * `conditional`: the request is a read that may end in 304 Not Modified (rest/conditional.ts),
 * which does not count (GitHub's rule). It is admitted while the credential has a point left,
 * without spending it; `countOutcome` spends it once the status is known. The only write is
 * the limiter's atomic consume, so the count stays exact across instances (Redis): a 304 never
 * spends a point, and no more than the limit of other answers are ever given in a window.
 *
 * `message`: the request is an MCP message (/mcp). Its credential spends a point of its MCP
 * message budget at once (rate-limit.ts consumeMessage: five times the request limit), which
 * bounds every message, whatever it is; `countMessage` spends the request point once the body
 * says the message is one that costs it (the count stage), before anything runs.
 */
export async function admit(
  app: App,
  req: IncomingMessage,
  opts: { conditional?: boolean; credential?: 'bearer' | 'session'; message?: boolean } = {},
): Promise<Admission> {
  let principal: Principal | null = null;
  let refusal: ApiError | undefined;
  try {
    const path = (req.url ?? '').split('?')[0];
    const surface = path === '/mcp' ? 'mcp' : path === '/graphql' ? 'graphql' : 'rest';
    principal =
      opts.credential === 'session'
        ? await sessionPrincipalForBinary(app, req)
        : await authenticate(
            app.prisma,
            headerOf(req, 'authorization'),
            app.clock.now(),
            resourceUrl(app.config.publicBaseUrl, surface),
            app.principals,
          );
    // The dashboard on /graphql: its session cookie plus the CSRF header, when no Bearer is given.
    if (!principal && path === '/graphql') principal = await sessionPrincipalForHttp(app, req);
    app.keyUse.record(principal);
  } catch (err) {
    refusal = apiErrorOf(err);
    if (!refusal) throw err;
  }
  const key = principal?.credentialId ?? `ip:${clientAddress(app.config, req)}`;
  const accountId = principal?.accountId;
  // A console session has its own, larger budget (rate-limit.ts); keys and tokens the spec's.
  const kind = principal?.kind;
  if (opts.conditional && principal && !refusal) {
    const standing = await app.limits.peekRequest(key, accountId, kind);
    if (!standing.allowed) return { principal, limitHeaders: rateLimitHeaders(standing), refusal: overLimit(standing) };
    const countOutcome = async (status: number) => {
      if (status === 304) return { limitHeaders: rateLimitHeaders(standing) };
      const limit = await app.limits.consumeRequest(key, accountId, kind);
      return { limitHeaders: rateLimitHeaders(limit), refusal: limit.allowed ? undefined : overLimit(limit) };
    };
    return { principal, limitHeaders: rateLimitHeaders(standing), countOutcome };
  }
  if (opts.message && principal && !refusal) {
    const messages = await app.limits.consumeMessage(key, principal.accountId);
    if (!messages.allowed)
      return { principal, limitHeaders: rateLimitHeaders(messages), refusal: overLimit(messages, 'MCP messages') };
    const countMessage = async (spendsPoint: boolean): Promise<Counted> => {
      if (!spendsPoint)
        return {
          limitHeaders: rateLimitHeaders({ ...(await app.limits.peekRequest(key, accountId, kind)), allowed: true }),
        };
      const limit = await app.limits.consumeRequest(key, accountId, kind);
      return { limitHeaders: rateLimitHeaders(limit), refusal: limit.allowed ? undefined : overLimit(limit) };
    };
    return { principal, limitHeaders: {}, countMessage };
  }
  const limit = await app.limits.consumeRequest(key, accountId, kind);
  const limitHeaders = rateLimitHeaders(limit);
  if (!refusal && !limit.allowed) refusal = overLimit(limit);
  return { principal, limitHeaders, refusal };
}

/** The 429 of a spent budget: the credential's own, or the ceiling all of the account's credentials share. */
export function overLimit(limit: RateLimitResult, what = 'requests'): ApiError {
  const whose =
    limit.scope === 'account' ? 'account-wide rate limit (all credentials of the account together)' : 'rate limit';
  return new ApiError(
    429,
    `The ${whose} of ${limit.limit} ${what} per minute was exceeded. Retry after ${limit.retryAfter} s.`,
  );
}

export function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : (value ?? null);
}
