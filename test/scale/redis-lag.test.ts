import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { connectRedis, REDIS_COMMAND_TIMEOUT_MS, REDIS_QUIET_AFTER_TIMEOUT_MS } from '../../src/events/stream.ts';
import { freePort } from '../helpers/process.ts';

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

describe.skipIf(spawnSync('redis-server', ['--version']).status !== 0)(
  'a frozen Redis (SIGSTOP, a throwaway server)',
  () => {
    it('the first command waits out the bound; the next ones fail at once, unsent, for the quiet window; after it Redis is tried again', async () => {
      const port = await freePort();
      const server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      const redis = connectRedis(`redis://127.0.0.1:${port}`);
      redis.on('error', () => undefined);
      try {
        for (let i = 0; i < 50 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
        await expect(redis.ping()).resolves.toBe('PONG');
        server.kill('SIGSTOP');
        let started = performance.now();
        await expect(redis.ping()).rejects.toThrow('Command timed out');
        expect(performance.now() - started).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 5);
        started = performance.now();
        await expect(redis.incr('x')).rejects.toThrow(/not answering/);
        expect(performance.now() - started).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS / 2);
        server.kill('SIGCONT');
        await new Promise((r) => setTimeout(r, REDIS_QUIET_AFTER_TIMEOUT_MS + 50));
        await expect(redis.ping()).resolves.toBe('PONG');
        // The command refused during the quiet window was never sent.
        await expect(redis.get('x')).resolves.toBeNull();
      } finally {
        redis.disconnect();
        server.kill('SIGKILL');
      }
    });
  },
);
