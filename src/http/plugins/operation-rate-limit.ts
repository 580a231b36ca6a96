import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { rateLimitHeaders, type RateLimits } from '../rate-limit.ts';
import { rootOperations } from './root-operations.ts';
import { RATE_LIMIT_CLASSES, type RateLimitClass } from '../../schema/operation.ts';

/** A class's window in words: "minute", "15 minutes". */
function per(rateLimit: RateLimitClass): string {
  const minutes = RATE_LIMIT_CLASSES[rateLimit].durationSeconds / 60;
  return minutes === 1 ? 'minute' : `${minutes} minutes`;
}

/**
 * Per-operation rate-limit classes declared on a field (`rateLimit: 'poolIpApply'`), on top
 * of the per-credential limit. Runs at execution, so REST, GraphQL and MCP share it. `limits`
 * is read per request: the server is built before the database (and so the limiter) is open.
 */
export function useOperationRateLimit(limits: () => RateLimits): Plugin<RequestContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as RequestContext;
      if (!ctx.principal) return;
      for (const meta of rootOperations(args)) {
        if (!meta.rateLimit) continue;
        const result = await limits().consume(meta.rateLimit, ctx.principal.credentialId);
        const headers = rateLimitHeaders(result);
        for (const [k, v] of Object.entries(headers)) ctx.responseHeaders.set(k, v);
        if (!result.allowed) {
          setResultAndStopExecution({
            errors: [
              new ApiError(
                429,
                `Too many requests to ${meta.rest}: the limit is ${result.limit} per ${per(meta.rateLimit)}. Retry after ${result.retryAfter} s.`,
                { headers },
              ),
            ],
          });
          return;
        }
      }
    },
  };
}
