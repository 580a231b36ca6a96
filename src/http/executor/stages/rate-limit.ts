import { ApiError } from '../../../errors.ts';
import { RATE_LIMIT_CLASSES, type RateLimitClass } from '../../../schema/operation.ts';
import { rateLimitHeaders } from '../../admission/rate-limit.ts';
import { type OperationCall, refused } from '../call.ts';

/** A class's window in words: "minute", "15 minutes". */
function per(rateLimit: RateLimitClass): string {
  const minutes = RATE_LIMIT_CLASSES[rateLimit].durationSeconds / 60;
  return minutes === 1 ? 'minute' : `${minutes} minutes`;
}

/**
 * Per-operation rate-limit classes declared on a field (`rateLimit: 'poolIpApply'`), on top of
 * the per-credential limit the request was admitted under; their headers join the answer's.
 */
export async function operationRateLimit(call: OperationCall): Promise<void> {
  const { principal, app, responseHeaders } = call.context;
  if (!principal) return;
  for (const { meta } of call.compiled.roots) {
    if (!meta.rateLimit) continue;
    const result = await app.limits.consume(meta.rateLimit, principal.credentialId);
    const headers = rateLimitHeaders(result);
    for (const [k, v] of Object.entries(headers)) responseHeaders.set(k, v);
    if (!result.allowed)
      return refused(
        call,
        new ApiError(
          429,
          `Too many requests to ${meta.rest}: the limit is ${result.limit} per ${per(meta.rateLimit)}. Retry after ${result.retryAfter} s.`,
          { headers },
        ),
      );
  }
}
