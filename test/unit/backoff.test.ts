import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelaySeconds, retrySchedule } from '../../src/modules/webhooks/backoff.ts';

describe('webhook retry backoff', () => {
  it('starts at 1 minute, doubles, and caps at 6 hours', () => {
    expect(retrySchedule().map((s) => s / 60)).toEqual([
      1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360, 360, 360, 360, 360,
    ]);
    expect(MAX_ATTEMPTS).toBe(16);
    expect(retryDelaySeconds(1)).toBe(60);
    expect(retryDelaySeconds(100)).toBe(6 * 3600);
    const hours = retrySchedule().reduce((a, b) => a + b, 0) / 3600;
    expect(hours).toBeCloseTo(44.52, 1);
    expect(() => retryDelaySeconds(0)).toThrow(RangeError);
  });
});
