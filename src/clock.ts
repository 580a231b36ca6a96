import { Redis } from 'ioredis';
import { connectRedis } from './events/stream.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

/**
 * The simulated clock: real time plus an offset stored in the database, so every
 * instance agrees. Provisioning, renewals, retries and expiries all read `now()`;
 * tests and operators move it forward with POST /admin/clock/advance.
 *
 * `now()` is synchronous, so each instance keeps the offset in memory. With a shared
 * database (several instances) it re-reads the offset every second and at once when another
 * instance announces an advance over Redis; an advance is therefore seen everywhere within
 * milliseconds with Redis, within a second without.
 */
export class Clock {
  private offsetMs = 0;
  private timer?: NodeJS.Timeout;
  private pub?: Redis;
  private sub?: Redis;
  private channel = 'svc:clock';

  constructor(private readonly prisma: PrismaClient) {}

  async load(): Promise<void> {
    // Created if missing with ON CONFLICT DO NOTHING, then read: instances starting together on a
    // new database each create it. (Prisma's upsert with an empty update reads, then inserts, so
    // all but one of them failed on the primary key.)
    await this.prisma.simClock.createMany({ data: [{ id: 1 }], skipDuplicates: true });
    const row = await this.prisma.simClock.findUniqueOrThrow({ where: { id: 1 } });
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
    await this.pub?.publish(this.channel, String(this.offsetMs)).catch(() => undefined);
    return this.now();
  }

  /** Keeps this instance's offset in step with the others (shared-database mode). */
  watch(opts: { redisUrl?: string; namespace: string; intervalMs?: number; onError?: (err: Error) => void }): void {
    this.channel = `svc:${opts.namespace}:clock`;
    const refresh = () =>
      this.prisma.simClock
        .findUnique({ where: { id: 1 } })
        .then((row) => {
          if (row && Number(row.offsetMs) > this.offsetMs) this.offsetMs = Number(row.offsetMs);
        })
        .catch((err) => opts.onError?.(err));
    this.timer = setInterval(refresh, opts.intervalMs ?? 1000);
    this.timer.unref();
    if (opts.redisUrl) {
      this.pub = connectRedis(opts.redisUrl);
      this.sub = new Redis(opts.redisUrl);
      for (const c of [this.pub, this.sub]) c.on('error', (err) => opts.onError?.(err));
      // The message carries the new offset; the database stays the source of truth (offsets only grow).
      this.sub.on('message', (_channel: string, offset: string) => {
        const n = Number(offset);
        if (Number.isFinite(n) && n > this.offsetMs) this.offsetMs = n;
      });
      void this.sub.subscribe(this.channel).catch((err) => opts.onError?.(err));
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.pub?.disconnect();
    this.sub?.disconnect();
  }
}
