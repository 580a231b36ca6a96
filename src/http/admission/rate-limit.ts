import type { Redis } from 'ioredis';
import {
  type IRateLimiterOptions,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ACCOUNT_LIMIT_MULTIPLE, SESSION_REQUESTS_PER_MINUTE } from '../../config.ts';
import type { Principal } from '../../modules/auth/service.ts';
import { RATE_LIMIT_CLASSES, type RateLimitClass } from '../../schema/operation.ts';

/** The spec's per-credential limit. */
export const REQUESTS_PER_MINUTE = 120;

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time, in seconds, at which the current window resets. */
  resetAt: number;
  /** Seconds to wait before retrying (when refused). */
  retryAfter: number;
  /** Whose budget this is: the credential's (or client address's), or the whole account's. */
  scope?: 'credential' | 'account';
}

/**
 * MCP messages a credential may send per minute, as a multiple of its request limit: every
 * message spends one, free ones included (notifications, initialize, ping, listings, which
 * spend no request point), so a flood of them is bounded too; the account's credentials
 * together have the same multiple of the account's ceiling (consumeMessage).
 */
const MCP_MESSAGE_MULTIPLE = 5;

type Bucket = 'default' | 'session' | 'account' | 'messages' | 'messages-account' | RateLimitClass;

type Key = string | number;
type Options = { [key: string]: unknown };

/**
 * A Redis limiter's insurance (rate-limiter-flexible's `insuranceLimiter`): a memory limiter
 * that tells `onUse` each time it answers, which is each time Redis did not.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    opts: IRateLimiterOptions,
    private readonly onUse: () => void,
  ) {
    super(opts);
  }

  override consume(key: Key, points?: number, options?: Options) {
    this.onUse();
    return super.consume(key, points, options);
  }
  override penalty(key: Key, points?: number, options?: Options) {
    this.onUse();
    return super.penalty(key, points, options);
  }
  override reward(key: Key, points?: number, options?: Options) {
    this.onUse();
    return super.reward(key, points, options);
  }
  override get(key: Key, options?: Options) {
    this.onUse();
    return super.get(key, options);
  }
  override set(key: Key, points: number, secDuration: number, options?: Options) {
    this.onUse();
    return super.set(key, points, secDuration, options);
  }
  override block(key: Key, secDuration: number, options?: Options) {
    this.onUse();
    return super.block(key, secDuration, options);
  }
  override delete(key: Key, options?: Options) {
    this.onUse();
    return super.delete(key, options);
  }
}

/**
 * Fixed-window counters per credential, and per account above them (consumeRequest): memory in the embedded default, Redis when
 * REDIS_URL is set (exact across instances), with a memory insurance limiter so a Redis
 * outage degrades to per-instance limits instead of failing requests.
 */
export class RateLimits {
  private readonly limiters = new Map<Bucket, RateLimiterAbstract>();

  constructor(
    private readonly redis?: Redis,
    private readonly requestsPerMinute = REQUESTS_PER_MINUTE,
    private readonly namespace = 'default',
    /** 0: no account-wide ceiling. */
    private readonly accountRequestsPerMinute = requestsPerMinute * ACCOUNT_LIMIT_MULTIPLE,
    /** Told each time Redis failed (down, or no answer within its command timeout) and the memory limiter answered instead. */
    private readonly onRedisFailure?: (err: Error) => void,
    private readonly sessionRequestsPerMinute = SESSION_REQUESTS_PER_MINUTE,
  ) {}

  private limiter(bucket: Bucket): RateLimiterAbstract {
    let limiter = this.limiters.get(bucket);
    if (!limiter) {
      const { points, durationSeconds } =
        bucket === 'default'
          ? { points: this.requestsPerMinute, durationSeconds: 60 }
          : bucket === 'session'
            ? { points: this.sessionRequestsPerMinute, durationSeconds: 60 }
            : bucket === 'account'
              ? { points: this.accountRequestsPerMinute, durationSeconds: 60 }
              : bucket === 'messages'
                ? { points: this.requestsPerMinute * MCP_MESSAGE_MULTIPLE, durationSeconds: 60 }
                : bucket === 'messages-account'
                  ? { points: this.accountRequestsPerMinute * MCP_MESSAGE_MULTIPLE, durationSeconds: 60 }
                  : RATE_LIMIT_CLASSES[bucket];
      const opts = { points, duration: durationSeconds, keyPrefix: `svc:${this.namespace}:rl:${bucket}` };
      limiter = this.redis
        ? new RateLimiterRedis({ ...opts, storeClient: this.redis, insuranceLimiter: this.insurance(opts) })
        : new RateLimiterMemory(opts);
      this.limiters.set(bucket, limiter);
    }
    return limiter;
  }

  /**
   * The limiter that answers while Redis fails: a refused connection and a command timeout (a
   * frozen Redis, REDIS_COMMAND_TIMEOUT_MS) both reach it; each use reports the outage.
   */
  private insurance(opts: { points: number; duration: number; keyPrefix: string }): InsuranceLimiter {
    return new InsuranceLimiter(opts, () =>
      this.onRedisFailure?.(new Error('Redis did not answer; per-instance rate limits apply')),
    );
  }

  async consume(bucket: Bucket, key: string): Promise<RateLimitResult> {
    const limiter = this.limiter(bucket);
    try {
      return toResult(await limiter.consume(key), limiter.points, true);
    } catch (err) {
      if (err instanceof RateLimiterRes) return toResult(err, limiter.points, false);
      throw err;
    }
  }

  /**
   * The key's standing without spending a point: allowed while one is left. A conditional read
   * is admitted on this and counted (consume) only once it is known not to be a 304.
   */
  async peek(bucket: Bucket, key: string): Promise<RateLimitResult> {
    const limiter = this.limiter(bucket);
    const res = await limiter.get(key);
    if (!res) return toResult(new RateLimiterRes(limiter.points, limiter.duration * 1000, 0), limiter.points, true);
    return toResult(res, limiter.points, res.remainingPoints > 0);
  }

  /** Gives back points a consume took, for an attempt that turned out not to count (a right password). */
  async refund(bucket: Bucket, key: string, points = 1): Promise<void> {
    await this.limiter(bucket).reward(key, points);
  }

  /** Forgets the key's count in this bucket (a right password clears that e-mail's failures). */
  async forget(bucket: Bucket, key: string): Promise<void> {
    await this.limiter(bucket).delete(key);
  }

  /**
   * One request of a credential (`key`) of `accountId`: a point from the credential's bucket, then
   * one from the account's. Each consume is atomic, so both counts stay exact across instances
   * (Redis). A request the account refuses gives the credential its point back: its own budget
   * is not spent on requests it was not served. Without an account (no valid credential), the
   * client address's bucket alone. The result is the tighter of the two (docs/REFERENCE.md: Rate limits).
   * A console session (`kind` 'session') spends from its own, larger bucket.
   */
  async consumeRequest(key: string, accountId?: string, kind?: Principal['kind']): Promise<RateLimitResult> {
    return this.consumeBoth(kind === 'session' ? 'session' : 'default', 'account', key, accountId);
  }

  /**
   * One MCP message of a credential (`key`) of `accountId`, whatever it turns out to be: a point of
   * the credential's message budget, then one of the account's, as consumeRequest counts requests.
   */
  async consumeMessage(key: string, accountId: string): Promise<RateLimitResult> {
    return this.consumeBoth('messages', 'messages-account', key, accountId);
  }

  private async consumeBoth(bucket: Bucket, accountBucket: Bucket, key: string, accountId?: string) {
    const own = await this.consume(bucket, key);
    if (!own.allowed || !accountId || !this.accountRequestsPerMinute) return own;
    const account = { ...(await this.consume(accountBucket, accountId)), scope: 'account' as const };
    if (!account.allowed)
      await this.limiter(bucket)
        .reward(key, 1)
        .catch(() => undefined);
    return tighter(own, account);
  }

  /** consumeRequest's standing without spending a point (conditional reads). */
  async peekRequest(key: string, accountId?: string, kind?: Principal['kind']): Promise<RateLimitResult> {
    const own = await this.peek(kind === 'session' ? 'session' : 'default', key);
    if (!accountId || !this.accountRequestsPerMinute) return own;
    return tighter(own, { ...(await this.peek('account', accountId)), scope: 'account' });
  }
}

/** The result a client should heed: a refusal over an admission, else the fewer points left. */
function tighter(own: RateLimitResult, account: RateLimitResult): RateLimitResult {
  if (own.allowed !== account.allowed) return own.allowed ? account : own;
  if (!own.allowed) return own.retryAfter >= account.retryAfter ? own : account;
  return account.remaining < own.remaining ? account : own;
}

function toResult(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitResult {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(r.limit),
    'X-RateLimit-Remaining': String(r.remaining),
    'X-RateLimit-Reset': String(r.resetAt),
  };
  if (!r.allowed) headers['Retry-After'] = String(r.retryAfter);
  return headers;
}
