import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { advance } from './servers.ts';

/** Advances the simulated clock to `when` (which must be ahead) and runs what became due. */
export async function advanceTo(app: TestApp, when: Date): Promise<void> {
  const seconds = (when.getTime() - app.running.app.clock.now().getTime()) / 1000;
  expect(seconds).toBeGreaterThan(0);
  await advance(app, Math.ceil(seconds));
}

/** 12:00 UTC on the first day of the month after the simulated now: a start that makes renewal dates predictable. */
export function nextFirstOfMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 12, 0, 0));
}

export const HOUR = 3600;
export const DAY = 86_400;
