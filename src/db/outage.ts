import { isDatabaseUnavailable } from './errors.ts';

interface OutageLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * What an outage of a dependency (PostgreSQL, Redis) writes to the log: one line when it goes,
 * a count every `summaryMs` while it stays away, one line when it is back (found by probing it
 * every `probeMs`, so the line comes with no traffic), instead of a line and a stack trace for
 * every request that failed on it.
 */
export class Outage {
  private since?: number;
  private failures = 0;
  private reported = 0;
  private timer?: NodeJS.Timeout;
  private probing = false;

  constructor(
    readonly name: string,
    private readonly log: OutageLog,
    private readonly probe: () => Promise<unknown>,
    private readonly opts: { probeMs?: number; summaryMs?: number } = {},
  ) {}

  get isDown(): boolean {
    return this.since !== undefined;
  }

  /** A failure that means the dependency cannot be reached right now. */
  failed(err: unknown): void {
    this.failures++;
    const now = Date.now();
    if (this.since === undefined) {
      this.since = this.reported = now;
      this.log.warn({ dependency: this.name, err: messageOf(err) }, `${this.name} unreachable`);
      this.timer = setInterval(() => void this.check(), this.opts.probeMs ?? 1000);
      this.timer.unref();
    } else if (now - this.reported >= (this.opts.summaryMs ?? 30_000)) {
      this.reported = now;
      this.log.warn(
        { dependency: this.name, failures: this.failures, downMs: now - this.since },
        `${this.name} still unreachable`,
      );
    }
  }

  private async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await this.probe();
      this.recovered();
    } catch {
      // still away
    } finally {
      this.probing = false;
    }
  }

  private recovered(): void {
    if (this.since === undefined) return;
    this.log.info(
      { dependency: this.name, failures: this.failures, downMs: Date.now() - this.since },
      `${this.name} reachable again`,
    );
    this.stop();
    this.since = undefined;
    this.failures = 0;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

export interface Outages {
  database: Outage;
  /** Present when REDIS_URL is set. */
  redis?: Outage;
}

/**
 * Logs `err` as part of a database outage when it is one (no stack trace: it is expected and
 * answered with a 503), else as the error it is.
 */
export function logFailure(
  outages: Outages | undefined,
  log: { error(obj: object, msg: string): void },
  err: unknown,
  msg: string,
): void {
  if (outages && isDatabaseUnavailable(err)) outages.database.failed(err);
  else log.error({ err }, msg);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? (err.message.trim().split('\n').filter(Boolean).at(-1) ?? err.name) : String(err);
}
