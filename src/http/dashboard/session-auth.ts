import type { IncomingMessage } from 'node:http';
import type { App } from '../../app-services.ts';
import { forbidden, unauthorized } from '../../errors.ts';
import type { Principal } from '../../modules/auth/service.ts';
import {
  findSession,
  parseCookies,
  safeEqual,
  SESSION_COOKIE,
  sessionScopes,
  type Session,
} from '../../modules/dashboard/sessions.ts';

/** The dashboard session of a request, from its cookie (no CSRF check: callers add theirs). */
export async function sessionOf(app: App, req: IncomingMessage): Promise<{ secret: string; session: Session } | null> {
  const secret = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  const session = await findSession(app.prisma, secret, app.clock.now(), app.principals);
  return session ? { secret, session } : null;
}

/** Host names of this machine's loopback interface, as URL.hostname writes them. */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True when the request's Origin (or, without one, its Referer) is this service: the
 * PUBLIC_BASE_URL's origin. The Host header never counts (the client writes it). In development
 * — PUBLIC_BASE_URL itself on a loopback host — a loopback origin (localhost, 127.0.0.1, [::1])
 * with the same scheme and PUBLIC_BASE_URL's port, or the port the request arrived on, is ours
 * too. Browsers always send Origin on WebSocket upgrades and cross-site POSTs, so a foreign page
 * fails here.
 */
export function sameOrigin(app: App, req: IncomingMessage): boolean {
  let origin = req.headers.origin;
  if (!origin && typeof req.headers.referer === 'string') origin = req.headers.referer;
  if (!origin) return false;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return false;
  }
  const own = new URL(app.config.publicBaseUrl);
  if (given.origin === own.origin) return true;
  if (!LOOPBACK_HOSTNAMES.has(own.hostname) || !LOOPBACK_HOSTNAMES.has(given.hostname)) return false;
  const port = given.port || (given.protocol === 'https:' ? '443' : '80');
  const ownPort = own.port || (own.protocol === 'https:' ? '443' : '80');
  return given.protocol === own.protocol && (port === ownPort || port === String(req.socket.localPort));
}

/** A password sign-in may use every scope; a session opened from a credential (SSO link) only that credential's. */
function principalOf(session: Session): Principal {
  return {
    accountId: session.accountId,
    credentialId: session.id,
    kind: 'session',
    scopes: new Set(sessionScopes(session)),
    passwordAt: session.passwordAt,
  };
}

/**
 * The dashboard's credential on /graphql over HTTP: the session cookie counts only with an
 * `X-CSRF-Token` header equal to the session's CSRF token (a cross-site page can neither read
 * the token nor set the header without a CORS preflight we never grant).
 */
export async function sessionPrincipalForHttp(app: App, req: IncomingMessage): Promise<Principal | null> {
  const given = req.headers['x-csrf-token'];
  if (typeof given !== 'string' || !req.headers.cookie) return null;
  const found = await sessionOf(app, req);
  return found && safeEqual(given, found.session.csrfToken) ? principalOf(found.session) : null;
}

/** The dashboard's credential on the graphql-ws upgrade: the session cookie from our own origin only (no cross-site WebSocket hijacking). */
export async function sessionPrincipalForUpgrade(app: App, req: IncomingMessage): Promise<Principal | null> {
  if (!req.headers.cookie || !sameOrigin(app, req)) return null;
  const found = await sessionOf(app, req);
  return found ? principalOf(found.session) : null;
}

/**
 * The dashboard's credential on its copy of the binary streams (/dashboard/api/v1/…, the routes
 * the modules declare for /v1): the session cookie, and on every method, downloads included, the
 * `X-CSRF-Token` header equal to the session's token; a write from our own origin only. Refuses
 * 401 without a live session, 403 without the header (or from another origin). A Bearer
 * credential is refused here: keys and tokens keep to /v1, sessions to the dashboard's paths.
 */
export async function sessionPrincipalForBinary(app: App, req: IncomingMessage): Promise<Principal> {
  if (req.headers.authorization !== undefined)
    throw unauthorized(
      'The dashboard path takes the session cookie with X-CSRF-Token, not an Authorization header; call /v1 with a key or token.',
    );
  const found = req.headers.cookie ? await sessionOf(app, req) : null;
  if (!found) throw unauthorized('Sign in to the dashboard first.');
  const given = req.headers['x-csrf-token'];
  if (typeof given !== 'string' || !safeEqual(given, found.session.csrfToken))
    throw forbidden('Missing or invalid CSRF token (X-CSRF-Token).');
  if (req.method !== 'GET' && req.method !== 'HEAD' && !sameOrigin(app, req))
    throw forbidden('Cross-origin request refused.');
  return principalOf(found.session);
}
