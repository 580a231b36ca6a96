import pg from 'pg';

/** A LISTEN held open on a channel; `close` ends it. */
export interface Listening {
  close(): Promise<void>;
}

export interface ListenOptions {
  /**
   * Called with each notification's payload, and once with none on every (re)connection: what
   * was sent while not listening is unknown.
   */
  onNotify: (payload?: string) => void;
  onError?: (err: Error) => void;
  /** Called once listening starts, and again on every reconnection (before `onNotify()` without payload). */
  onListening?: () => void;
  /** The connection's application_name (pg_stat_activity); LISTENER_APPLICATION_NAME unless given. */
  applicationName?: string;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 10_000;
/** What pg_stat_activity shows for the connection (tests find it by this name). */
export const LISTENER_APPLICATION_NAME = 'svc-event-listener';

/**
 * LISTENs on `channel` with a dedicated PostgreSQL connection (a pooled one cannot: LISTEN
 * belongs to its session). When the connection drops, it reconnects with a doubling backoff
 * (FIRST_RETRY_MS up to LAST_RETRY_MS); each successful connection counts as a notification,
 * since any sent while it was down were lost.
 */
export function listenPostgres(connectionString: string, channel: string, opts: ListenOptions): Listening {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = FIRST_RETRY_MS;

  const reconnectLater = (err: Error) => {
    if (closed || retry) return;
    opts.onError?.(err);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, LAST_RETRY_MS);
  };

  async function connect(): Promise<void> {
    const c = new pg.Client({
      connectionString,
      application_name: opts.applicationName ?? LISTENER_APPLICATION_NAME,
      connectionTimeoutMillis: 3000,
      keepAlive: true,
    });
    client = c;
    c.on('notification', (n) => n.channel === channel && opts.onNotify(n.payload ?? ''));
    c.on('error', (err) => reconnectLater(err));
    c.on('end', () => client === c && reconnectLater(new Error('event listener connection ended')));
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      c.removeAllListeners('end');
      void c.end().catch(() => undefined);
      if (client === c) client = undefined;
      reconnectLater(err as Error);
      return;
    }
    if (closed) return void (await c.end().catch(() => undefined));
    delay = FIRST_RETRY_MS;
    opts.onListening?.();
    opts.onNotify();
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
