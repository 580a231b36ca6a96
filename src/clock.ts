import type { PrismaClient } from './generated/prisma/client.ts';

/**
 * The simulated clock: real time plus an offset stored in the database, so every
 * instance agrees. Provisioning, renewals, retries and expiries all read `now()`;
 * tests and operators move it forward with POST /admin/clock/advance.
 */
export class Clock {
  private offsetMs = 0;
  constructor(private readonly prisma: PrismaClient) {}

  async load(): Promise<void> {
    const row = await this.prisma.simClock.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
    this.offsetMs = Number(row.offsetMs);
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock forward by `seconds` (never back: time-based state would go inconsistent). */
  async advance(seconds: number): Promise<Date> {
    const row = await this.prisma.simClock.update({
      where: { id: 1 },
      data: { offsetMs: { increment: BigInt(Math.round(seconds * 1000)) } },
    });
    this.offsetMs = Number(row.offsetMs);
    return this.now();
  }
}
