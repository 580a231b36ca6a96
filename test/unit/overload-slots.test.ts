import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

/** How many requests an instance serves at once when OVERLOAD_MAX_IN_FLIGHT is not said (REFERENCE: Overload). */
describe('the default number of slots', () => {
  const slots = (env: Record<string, string>) => loadConfig(env).overload.maxInFlight;
  const postgres = 'postgres://postgres@127.0.0.1:5432/test';

  it('on PostgreSQL is the pool size, so no admitted request waits at the pool', () => {
    expect(slots({ DATABASE_URL: postgres })).toBe(10);
    expect(slots({ DATABASE_URL: postgres, DATABASE_POOL_SIZE: '7' })).toBe(7);
    expect(loadConfig({ DATABASE_POOL_SIZE: '7' }, { databaseUrl: postgres }).overload.maxInFlight).toBe(7);
  });

  it('on the embedded database is 4, whatever the pool size says', () => {
    expect(slots({})).toBe(4);
    expect(slots({ DATABASE_POOL_SIZE: '7' })).toBe(4);
  });

  it('is what OVERLOAD_MAX_IN_FLIGHT says when it is set', () => {
    expect(slots({ DATABASE_URL: postgres, OVERLOAD_MAX_IN_FLIGHT: '24' })).toBe(24);
    expect(slots({ OVERLOAD_MAX_IN_FLIGHT: '24' })).toBe(24);
  });

  it('refuses a pool size that is not a positive whole number', () => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow('DATABASE_POOL_SIZE must be at least 1');
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'ten' })).toThrow(/DATABASE_POOL_SIZE/);
  });
});
