// What every svc command that talks to a server shares: the one variable naming the server and
// the one line saying it cannot be reached. Plain JavaScript with no imports, so the person's
// commands (user-commands.js) and the server's (src/cli.ts, src/mcp/stdio.ts) use the same.

/** Node's network error codes, as a person reads them. */
const REASONS = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
};

/**
 * `cannot reach <origin> (<why>)` when `err` is fetch failing to reach the server (no HTTP answer
 * at all), else undefined: an error of anything else is not a connection problem.
 */
export function cannotReach(url, err) {
  if (!(err instanceof TypeError) || !err.cause) return undefined;
  // An address family tried in turn (IPv6 then IPv4) fails as an AggregateError of both.
  const cause = err.cause.code ? err.cause : (err.cause.errors?.[0] ?? err.cause);
  const why = REASONS[cause.code] ?? cause.code ?? cause.message ?? err.message;
  return `cannot reach ${new URL(url).origin} (${why})`;
}

const BASE_URL_VARIABLE = 'SERVICE_BASE_URL';

/**
 * SERVICE_BASE_URL is the one name of the server's URL for every command; SVC_URL, the old name
 * of `svc login`/`api`/`logout`, still works (when SERVICE_BASE_URL is unset) and says once that
 * it is deprecated. Returns the URL the environment gives, or undefined.
 */
let warned = false;
export function baseUrlFromEnv(env = process.env, warn = (line) => process.stderr.write(`${line}\n`)) {
  if (env.SVC_URL && !warned) {
    warned = true;
    warn(
      `svc: SVC_URL is deprecated; set ${BASE_URL_VARIABLE}${env[BASE_URL_VARIABLE] ? ' (it is set, so SVC_URL is ignored)' : ''}`,
    );
  }
  return env[BASE_URL_VARIABLE] || env.SVC_URL || undefined;
}
