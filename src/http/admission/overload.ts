import { type ELDHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { OverloadLimits } from '../../config.ts';
import { ApiError } from '../../errors.ts';

/**
 * Stripe's concurrent-requests limiter and load shedder for one instance. An instance serves at
 * most `maxInFlight` requests at once; a request that finds every slot taken waits in a queue for
 * at most `maxQueueWaitMs`, and one that cannot start in time is refused with 503 + Retry-After
 * (code OVERLOADED) instead of being left to time out; past the queue's room it is refused at
 * once. Traffic is shed by its criticality: a freed slot goes to a waiting write (payments,
 * orders, the operator API, sign-in) first, then to a GraphQL or MCP call, and to a read (lists,
 * documents, pages, the console's polling) last, and reads have the least room in the queue; so
 * under load reads are the ones that wait out their budget. Waiting is what keeps a client that
 * retries at once from turning refusals into most of the instance's work. Health and readiness
 * never pass here. Each credential also has at most `maxInFlightPerCredential` requests past the
 * queue (429, code TOO_MANY_CONCURRENT_REQUESTS), those waiting outside their slot included, so
 * one client cannot keep an unbounded number open.
 */
export type Criticality = 'write' | 'call' | 'read';

/** Releases a slot; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  criticality: Criticality;
  queuedAt: number;
  grant: (release: Release) => void;
  timer: NodeJS.Timeout;
}

/** Why a request was refused: counted by `/metrics` as `http_shed_total{reason}`. */
export type ShedReason = 'saturated' | 'queue_full' | 'queue_timeout' | 'credential';

const RETRY_AFTER_SECONDS = 1;
/**
 * How long a request may wait before it counts as late: once the oldest of a long queue has,
 * slots go to the newest (next()); once even the newest has, a freed slot is held for a fresh one.
 */
const STANDING_QUEUE_MS = 100;
/** How long a freed slot is held for a request still to come while every waiting read is late (next()). */
const FRESH_HOLD_MS = 20;
/** Who gets a freed slot first. */
const PRIORITY: readonly Criticality[] = ['write', 'call', 'read'];
/** The part of the queue each kind of request may wait in. */
const QUEUE_SHARE: Record<Criticality, number> = { write: 1, call: 0.75, read: 0.5 };

/** The client closed its connection while its request waited for a slot: nobody is left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('The client went away while its request waited for a slot.');
  }
}

export class Overload {
  private inFlight = 0;
  /** The waiting requests, one queue per criticality, each in the order they came. */
  private readonly queues: Record<Criticality, Waiter[]> = { write: [], call: [], read: [] };
  private queued = 0;
  /** Requests back from a wait outside, waiting for a slot again (reenter()): served before the queue. */
  private readonly returning: ((release: Release) => void)[] = [];
  private readonly perCredential = new Map<string, number>();
  private readonly delay: ELDHistogram;
  private readonly sampler: NodeJS.Timeout;
  /** Set while freed slots are held for fresh requests (next()). */
  private hold: NodeJS.Timeout | undefined;
  private delayP99Ms = 0;

  constructor(
    readonly limits: OverloadLimits,
    private readonly observe: {
      shed(reason: ShedReason, criticality: Criticality): void;
      waited(seconds: number): void;
      watchLoad?(state: () => { inFlight: number; queued: number; eventLoopDelayMs: number }): void;
    },
  ) {
    this.delay = monitorEventLoopDelay({ resolution: 10 });
    this.delay.enable();
    this.sampler = setInterval(() => {
      this.delayP99Ms = this.delay.percentile(99) / 1e6;
      this.delay.reset();
    }, 1000);
    this.sampler.unref();
    observe.watchLoad?.(() => this.state());
  }

  /** What /readyz and /metrics report. */
  state() {
    return {
      inFlight: this.inFlight,
      queued: this.queued,
      eventLoopDelayMs: Math.round(this.delayP99Ms),
      saturated: this.saturated(),
    };
  }

  /**
   * Saturated: every slot taken with requests waiting, or the event loop running late while at
   * least half the slots are taken (a late loop alone is one long task: the embedded database
   * running a migration, a clock advance; that is not load to shed).
   */
  saturated(): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return this.queued > 0 || this.lateLoop();
    return this.inFlight >= this.limits.maxInFlight / 2 && this.lateLoop();
  }

  /**
   * A slot for one request, at once or after a short wait; refused (ApiError 503) when none can
   * be had in time. `onGone` registers what to call when the client has gone while it waits:
   * its place in the queue is given up (ClientGone), so no slot is spent on an answer nobody reads.
   */
  acquire(criticality: Criticality, onGone?: (cancel: () => void) => void): Release | Promise<Release> {
    if (this.free(criticality)) return this.take();
    if (this.queued >= this.limits.maxQueued * QUEUE_SHARE[criticality]) throw this.refuse('queue_full', criticality);
    const queuedAt = performance.now();
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        criticality,
        queuedAt,
        grant: (release) => {
          clearTimeout(waiter.timer);
          this.observe.waited((performance.now() - queuedAt) / 1000);
          resolve(release);
        },
        timer: setTimeout(() => {
          this.leave(waiter);
          this.observe.waited((performance.now() - queuedAt) / 1000);
          reject(this.refuse(this.lateLoop() ? 'saturated' : 'queue_timeout', criticality));
        }, this.limits.maxQueueWaitMs),
      };
      this.queues[criticality].push(waiter);
      this.queued++;
      onGone?.(() => {
        if (!this.leave(waiter)) return; // granted or refused already
        clearTimeout(waiter.timer);
        reject(new ClientGone());
      });
    });
  }

  /**
   * A slot again for a request back from a wait on another server (src/core/outside-waits.ts),
   * which gave its slot back meanwhile. It has done part of its work (a clone published) and
   * must record it, so it is never refused and never dropped for a client that has gone: it
   * takes the next freed slot, ahead of every waiting request.
   */
  reenter(): Release | Promise<Release> {
    if (this.inFlight < this.limits.maxInFlight) return this.take();
    return new Promise<Release>((resolve) => this.returning.push(resolve));
  }

  /**
   * Runs `wait`, a wait outside the instance (src/core/outside-waits.ts), without the caller's
   * slot: `give` gives it back (false when the caller holds none, already waiting outside), and
   * whatever the wait's outcome one is taken again (reenter) and handed to `retake`. Every
   * surface's requests wait outside this one way (the pipeline's shed stage, graphql-ws).
   */
  async waitWithoutSlot<T>(give: () => boolean, retake: (slot: Release) => void, wait: () => Promise<T>): Promise<T> {
    if (!give()) return wait();
    try {
      return await wait();
    } finally {
      retake(await this.reenter());
    }
  }

  /** One more request of a credential in flight, or a 429 when it already has its share. */
  enterCredential(credentialId: string, criticality: Criticality): Release {
    const now = this.perCredential.get(credentialId) ?? 0;
    if (now >= this.limits.maxInFlightPerCredential) {
      this.observe.shed('credential', criticality);
      throw new ApiError(
        429,
        `Too many concurrent requests for this credential: at most ${this.limits.maxInFlightPerCredential} at once. Retry after ${RETRY_AFTER_SECONDS} s.`,
        { code: 'TOO_MANY_CONCURRENT_REQUESTS', headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      );
    }
    this.perCredential.set(credentialId, now + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.perCredential.get(credentialId) ?? 1) - 1;
      if (left > 0) this.perCredential.set(credentialId, left);
      else this.perCredential.delete(credentialId);
    };
  }

  close(): void {
    clearInterval(this.sampler);
    clearTimeout(this.hold);
    this.delay.disable();
    for (const queue of Object.values(this.queues)) for (const waiter of queue.splice(0)) clearTimeout(waiter.timer);
    this.queued = 0;
  }

  private lateLoop(): boolean {
    return this.delayP99Ms > this.limits.maxEventLoopDelayMs;
  }

  private take(): Release {
    this.inFlight++;
    // Every slot is taken again: there is nothing left to hold (next()).
    if (this.inFlight >= this.limits.maxInFlight && this.hold) {
      clearTimeout(this.hold);
      this.hold = undefined;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.next();
    };
  }

  /**
   * Hands a freed slot to a waiting write, else call, else read (while reads may run): the one
   * that has waited longest, the newest once the queue stands: longer than twice the slots,
   * its oldest request waiting past STANDING_QUEUE_MS (adaptive LIFO: under sustained overload
   * the requests served are the ones that can still be answered quickly, and the ones refused
   * are those already late; a few clients coming back as fast as they are served stay first
   * come, first served). When even the newest waiting read is late, the slots freed together
   * are held for FRESH_HOLD_MS: the clients just served come straight back, and a request that
   * arrives meanwhile takes a free slot at once (acquire); what is still free then goes to the
   * newest waiting. Without the hold, a burst of freed slots reaches past the fresh requests
   * to ones that have waited for seconds. Writes and calls are never held back.
   */
  private next(): void {
    while (this.grantNext(false));
  }

  /** Grants one slot as next() says; false when none was granted (or the slots are held). */
  private grantNext(afterHold: boolean): boolean {
    if (this.returning.length > 0 && this.inFlight < this.limits.maxInFlight) {
      this.returning.shift()?.(this.take());
      return true;
    }
    for (const criticality of PRIORITY) {
      if (!this.free(criticality)) continue;
      const queue = this.queues[criticality];
      if (queue.length === 0) continue;
      const now = performance.now();
      const late = this.queued > 2 * this.limits.maxInFlight && now - queue[0].queuedAt > STANDING_QUEUE_MS;
      const waiter = late ? queue[queue.length - 1] : queue[0];
      if (late && criticality === 'read' && !afterHold && now - waiter.queuedAt > STANDING_QUEUE_MS) {
        // Ended after the loop's next read of its sockets (setImmediate), so a request that has
        // arrived meanwhile takes the slot before the oldest can.
        this.hold ??= setTimeout(
          () =>
            setImmediate(() => {
              this.hold = undefined;
              while (this.grantNext(true));
            }),
          FRESH_HOLD_MS,
        );
        return false;
      }
      this.leave(waiter);
      waiter.grant(this.take());
      return true;
    }
    return false;
  }

  /** A slot is free for this request: one is, and a read does not start on a busy, late loop. */
  private free(criticality: Criticality): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return false;
    return criticality !== 'read' || !(this.inFlight >= this.limits.maxInFlight / 2 && this.lateLoop());
  }

  /** Takes a waiter out of its queue; false when it had left already (granted, refused or gone). */
  private leave(waiter: Waiter): boolean {
    const queue = this.queues[waiter.criticality];
    // The oldest leave first (refused after their budget) or the newest (served under a standing queue).
    const index = queue[0] === waiter ? 0 : queue.lastIndexOf(waiter);
    if (index < 0) return false;
    queue.splice(index, 1);
    this.queued--;
    return true;
  }

  private refuse(reason: ShedReason, criticality: Criticality): ApiError {
    this.observe.shed(reason, criticality);
    return new ApiError(503, `The service is overloaded; retry after ${RETRY_AFTER_SECONDS} s.`, {
      code: 'OVERLOADED',
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}
