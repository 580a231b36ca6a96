import type { ServiceContext } from './server-row.ts';

// A server's usage history (Server.usage): the period decides the span and the step; the
// provider answers the figures.

/** Each period: how many samples, each of how many seconds. */
export const USAGE_PERIODS = {
  HOUR: { points: 60, stepSeconds: 60 },
  DAY: { points: 96, stepSeconds: 15 * 60 },
  WEEK: { points: 168, stepSeconds: 60 * 60 },
} as const;
export type UsagePeriod = keyof typeof USAGE_PERIODS;

/**
 * The samples of the last `period`, the last step being the one under way (its start a multiple
 * of the step), so the HOUR's last sample is the current minute's, as serverStats answers it.
 */
export async function serverUsage(ctx: ServiceContext, server: { id: string }, period: UsagePeriod) {
  const now = ctx.app.clock.now();
  const { points, stepSeconds } = USAGE_PERIODS[period];
  const stepMs = stepSeconds * 1000;
  const from = new Date(Math.floor(now.getTime() / stepMs) * stepMs - (points - 1) * stepMs);
  const samples = await ctx.app.provider.usage(ctx.db, server.id, { from, stepSeconds, points }, now);
  return { period, step: stepSeconds, from, to: now, samples };
}
