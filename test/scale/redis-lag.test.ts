import { describe, expect, it } from 'vitest';
import { connectRedis, REDIS_COMMAND_TIMEOUT_MS } from '../../src/events/stream.ts';

/**
 * Redis commands are bounded (REDIS_COMMAND_TIMEOUT_MS) so a frozen Redis costs a request that
 * much (test/scale/freeze.test.ts). A busy event loop is not a frozen Redis: a reply that arrived
 * while the loop was blocked longer than the bound is still read, not failed as a timeout.
 */
describe.skipIf(!process.env.TEST_REDIS_URL)('Redis command bound under a busy event loop', () => {
  it('a reply that arrived while the loop was blocked past the bound is taken, not timed out', async () => {
    const redis = connectRedis(process.env.TEST_REDIS_URL!);
    try {
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      for (let i = 0; i < 5; i++) {
        const answer = redis.ping();
        const until = Date.now() + REDIS_COMMAND_TIMEOUT_MS * 2;
        while (Date.now() < until); // the loop is busy: the reply waits in the socket
        await expect(answer).resolves.toBe('PONG');
      }
    } finally {
      redis.disconnect();
    }
  });
});
