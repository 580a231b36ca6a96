/**
 * True when an error means the database cannot be reached right now (down, restarting,
 * refusing connections, network cut), as opposed to a bug or a bad query. Such failures
 * answer 503 with Retry-After instead of 500, and recover by themselves.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length) {
    const e = queue.shift() as ErrorParts | null | undefined;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    for (const code of [e.code, e.originalCode, e.errno]) {
      if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    }
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
    queue.push(e.cause, e.originalError, e.meta?.driverAdapterError, e.meta?.driverAdapterError?.cause);
  }
  return false;
}

/** What is read of an error and of the errors it wraps (pg's, Node's, Prisma's and its driver adapter's). */
interface ErrorParts {
  code?: unknown;
  originalCode?: unknown;
  errno?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
}

// SQLSTATE: 57014 query_canceled (statement_timeout: the server is too slow to answer now), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
// 53300 too_many_connections, 55000 (used for "database is not accepting connections");
// class 08 connection exceptions; Prisma P1001/P1002/P1017; Node socket errors.
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  'P1001',
  'P1002',
  'P1017',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGE =
  /not currently accepting connections|Connection terminated|timeout exceeded when trying to connect|Can't reach database server|the database system is (starting up|shutting down|in recovery mode)|Code: `(57P0[123]|53300|57014|08\d\d\d)`|connect ECONNREFUSED|Client has encountered a connection error|Query read timeout/i;
