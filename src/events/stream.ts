import { EventEmitter } from 'node:events';
import { Redis, type Command } from 'ioredis';
import type { EventEnvelope, RelayedEvent } from './envelope.ts';

/**
 * The live event stream: the relay publishes committed events, every instance's GraphQL
 * subscribers listen (the webhook delivery sender does not: the relay queues its deliveries
 * and wakes it, src/background.ts). In-process by default; Redis
 * pub/sub when REDIS_URL is set, so a subscriber on any instance sees events relayed by any
 * other. The stream is a fast path, not the record: whatever a subscriber misses (a
 * reconnect, an instance restart) it replays from the outbox (src/modules/events/live.ts).
 */
export interface EventStream {
  readonly kind: 'memory' | 'redis';
  publish(events: RelayedEvent[]): Promise<void>;
  /** Calls `listener` for every event published from now on; returns the unsubscribe function. */
  subscribe(listener: (event: RelayedEvent) => void): () => void;
  close(): Promise<void>;
}

/**
 * Options of every Redis connection that sends commands: while Redis is away a command fails
 * at once (no offline queue), and while it is frozen (connected, not answering) it fails after
 * REDIS_COMMAND_TIMEOUT_MS, so callers fall back (rate limits per instance, events from the
 * outbox) instead of waiting.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 200;
const REDIS_COMMAND_OPTIONS = { maxRetriesPerRequest: 1, enableOfflineQueue: false } as const;

/** After a command timed out, how long commands fail at once instead of each waiting out the bound. */
export const REDIS_QUIET_AFTER_TIMEOUT_MS = 1000;

/**
 * A Redis connection for commands, each bounded by REDIS_COMMAND_TIMEOUT_MS. ioredis's own
 * `commandTimeout` fires in the timers phase, before the poll phase reads a reply that arrived
 * while the event loop was busy, so under CPU load a prompt Redis would look frozen and the
 * limits fall back to memory for nothing. This bound gives the loop one turn (setImmediate runs
 * after the poll phase) to read replies already received before it fails the command.
 * Once a command has timed out, Redis counts as away: for REDIS_QUIET_AFTER_TIMEOUT_MS every
 * command fails at once, unsent (callers fall back without waiting), then one is tried again.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, REDIS_COMMAND_OPTIONS);
  const send = redis.sendCommand.bind(redis) as (c: Command, ...r: unknown[]) => unknown;
  let quietUntil = 0;
  redis.sendCommand = (command: Command, ...rest: unknown[]) => {
    if (performance.now() < quietUntil) {
      command.reject(new Error('Redis is not answering (a command timed out just now)'));
      return command.promise;
    }
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          quietUntil = performance.now() + REDIS_QUIET_AFTER_TIMEOUT_MS;
          command.reject(new Error('Command timed out'));
        }),
      REDIS_COMMAND_TIMEOUT_MS,
    );
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    command.promise.then(settle, settle);
    return send(command, ...rest);
  };
  return redis;
}

/** `namespace` keeps deployments that share a Redis apart (src/db/namespace.ts). */
export function createEventStream(opts: {
  redisUrl?: string;
  namespace?: string;
  onError?: (err: Error) => void;
}): EventStream {
  return opts.redisUrl
    ? new RedisEventStream(opts.redisUrl, `svc:${opts.namespace ?? 'default'}:events`, opts.onError)
    : new MemoryEventStream();
}

class MemoryEventStream implements EventStream {
  readonly kind = 'memory' as const;
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(events: RelayedEvent[]): Promise<void> {
    for (const e of events) this.emitter.emit('event', e);
  }

  subscribe(listener: (event: RelayedEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

interface Wire {
  p: string;
  e: EventEnvelope;
}

class RedisEventStream implements EventStream {
  readonly kind = 'redis' as const;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new MemoryEventStream();
  private subscribed?: Promise<unknown>;

  constructor(
    url: string,
    private readonly channel: string,
    onError?: (err: Error) => void,
  ) {
    // No offline queue: while Redis is away a publish fails at once (subscribers replay from
    // the outbox) instead of holding the relay until Redis returns.
    this.pub = connectRedis(url);
    this.sub = new Redis(url);
    for (const c of [this.pub, this.sub]) c.on('error', (err) => onError?.(err));
    this.sub.on('message', (_channel: string, message: string) => {
      const wire = JSON.parse(message) as Wire;
      void this.local.publish([{ position: BigInt(wire.p), envelope: wire.e }]);
    });
    this.subscribed = this.sub.subscribe(this.channel).catch((err) => onError?.(err));
  }

  async publish(events: RelayedEvent[]): Promise<void> {
    await this.subscribed;
    const pipeline = this.pub.pipeline();
    for (const e of events)
      pipeline.publish(this.channel, JSON.stringify({ p: e.position.toString(), e: e.envelope } satisfies Wire));
    await pipeline.exec();
  }

  subscribe(listener: (event: RelayedEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    await this.local.close();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
