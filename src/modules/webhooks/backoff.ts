/**
 * Webhook retry schedule (docs/REFERENCE.md: Webhooks). A delivery gets MAX_ATTEMPTS attempts: the
 * first at once, then retries after 1 min, 2, 4, 8, 16, 32, 64, 128, 256 min, then every
 * 6 h (the cap): 16 attempts spread over about 44.5 hours. Then it is marked failed (a
 * redeliver can still queue another attempt).
 */
const FIRST_RETRY_SECONDS = 60;
const MAX_RETRY_SECONDS = 6 * 60 * 60;
export const MAX_ATTEMPTS = 16;

/** Seconds to wait after the `failedAttempts`-th failed attempt (1-based) before the next. */
export function retryDelaySeconds(failedAttempts: number): number {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1)
    throw new RangeError('failedAttempts must be a positive integer');
  return Math.min(FIRST_RETRY_SECONDS * 2 ** (failedAttempts - 1), MAX_RETRY_SECONDS);
}

/** The waits before attempts 2..MAX_ATTEMPTS, in seconds. */
export function retrySchedule(maxAttempts = MAX_ATTEMPTS): number[] {
  return Array.from({ length: maxAttempts - 1 }, (_, i) => retryDelaySeconds(i + 1));
}
