import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { toEnvelope, type RelayedEvent } from './envelope.ts';
import { relayCursorPosition } from './relay.ts';
import type { EventStream } from './stream.ts';

const FILL_PAGE = 500;

/**
 * This instance's view of the event stream, made gap-free and in relay order.
 *
 * Every relayed event carries a dense position (`relaySeq`, numbered under the relay cursor's
 * lock), so a listener can tell when it has not seen one. Events go missing from a plain
 * stream when another instance relays them without a shared Redis, when a publish fails
 * (Redis away), or when two relays' publishes cross on the wire. Here a jump in position is
 * filled from the outbox before the later event is passed on, and a look at the relay cursor
 * every `checkMs` catches a loss that no later event reveals. Repeats (position already
 * passed) are dropped. Listeners — the GraphQL subscriptions — so see every event exactly
 * once, in order, while they stay connected.
 */
export class GaplessEventStream implements EventStream {
  readonly kind: EventStream['kind'];
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly arrivals: RelayedEvent[] = [];
  private last = 0n;
  private draining?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private unsubscribeInner?: () => void;

  constructor(
    private readonly inner: EventStream,
    private readonly deps: { prisma: PrismaClient; log: Logger },
    private readonly opts: { checkMs: number },
  ) {
    this.kind = inner.kind;
  }

  /** Starts from the relay cursor as it stands: what was relayed before is replayed with `after`. */
  async start(): Promise<void> {
    this.last = await this.cursorPosition();
    this.unsubscribeInner = this.inner.subscribe((event) => {
      this.arrivals.push(event);
      this.drain();
    });
    const check = () => {
      this.catchUp()
        .catch((err) => this.deps.log.warn({ err: (err as Error).message }, 'event stream catch-up failed'))
        .finally(() => {
          if (this.unsubscribeInner) this.timer = setTimeout(check, this.opts.checkMs).unref();
        });
    };
    this.timer = setTimeout(check, this.opts.checkMs).unref();
  }

  publish(events: RelayedEvent[]): Promise<void> {
    return this.inner.publish(events);
  }

  subscribe(listener: (event: RelayedEvent) => void): () => void {
    this.local.on('event', listener);
    return () => this.local.off('event', listener);
  }

  async close(): Promise<void> {
    this.unsubscribeInner?.();
    this.unsubscribeInner = undefined;
    clearTimeout(this.timer);
    await this.draining?.catch(() => undefined);
    this.local.removeAllListeners();
    await this.inner.close();
  }

  /** The relay cursor moved past what arrived here: fetch the rest from the outbox. */
  private async catchUp(): Promise<void> {
    if (this.draining || this.arrivals.length) return;
    const position = await this.cursorPosition();
    if (position <= this.last || this.draining || this.arrivals.length) return;
    await this.exclusively(() => this.fill(position + 1n));
  }

  private drain(): void {
    if (this.draining) return;
    void this.exclusively(async () => {
      for (let event = this.arrivals.shift(); event; event = this.arrivals.shift()) {
        if (event.position <= this.last) continue;
        if (event.position > this.last + 1n) {
          try {
            await this.fill(event.position);
          } catch (err) {
            // The database is away: pass the live event on rather than hold the stream; the
            // missed ones stay in the outbox for a replay with `after`.
            this.deps.log.warn(
              { err: (err as Error).message, from: String(this.last), to: String(event.position) },
              'event stream gap not filled',
            );
          }
        }
        this.emit(event);
      }
    });
  }

  /** Runs `work` as the one drain in progress; what arrived meanwhile is drained after it. */
  private exclusively(work: () => Promise<void>): Promise<void> {
    this.draining = work().finally(() => {
      this.draining = undefined;
      if (this.arrivals.length) this.drain();
    });
    return this.draining;
  }

  /** Emits the outbox's events after `last` and before `upto`, in order. */
  private async fill(upto: bigint): Promise<void> {
    for (;;) {
      const rows = await this.deps.prisma.event.findMany({
        where: { relaySeq: { gt: this.last, lt: upto } },
        orderBy: { relaySeq: 'asc' },
        take: FILL_PAGE,
      });
      for (const row of rows) this.emit({ position: row.relaySeq!, envelope: toEnvelope(row) });
      // Fewer than a page: the range is done (a deleted account's events leave holes in it).
      if (rows.length < FILL_PAGE) {
        if (upto - 1n > this.last) this.last = upto - 1n;
        return;
      }
    }
  }

  private emit(event: RelayedEvent): void {
    this.last = event.position;
    this.local.emit('event', event);
  }

  private cursorPosition(): Promise<bigint> {
    return relayCursorPosition(this.deps.prisma);
  }
}
