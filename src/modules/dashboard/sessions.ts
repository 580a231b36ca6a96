import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { hashSecret } from '../auth/secrets.ts';
import { verifyPassword } from '../auth/password.ts';
import { ALL_SCOPES, isScope, type Scope } from '../../scopes.ts';
import { announceCredentialChange, changingCredential, type PrincipalCache } from '../auth/principal-cache.ts';
import type { Principal } from '../auth/service.ts';
import { refusal } from '../../errors.ts';

/**
 * Dashboard sessions: a random 256-bit secret in an HttpOnly cookie, only its SHA-256 in the
 * database (so any instance sharing the database recognises it). The CSRF token is an HMAC of
 * the secret: it needs no storage, and only a page that can read our responses (same origin)
 * ever learns it.
 */

export const SESSION_COOKIE = 'svc_session';
/** Pre-sign-in CSRF cookie (double-submit) guarding the sign-in form itself. */
export const LOGIN_CSRF_COOKIE = 'svc_csrf';
/** Absolute lifetime of a session, on the simulated clock. */
export const SESSION_TTL_SECONDS = 12 * 3600;
/** How long after the password was typed a session may do account-wide acts (sudo mode), on the simulated clock. */
export const SUDO_WINDOW_SECONDS = 10 * 60;

// A fixed scrypt hash of a random password, verified against when the e-mail is unknown so
// both answers take the same time.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('csrf').digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface Session {
  id: string;
  accountId: string;
  csrfToken: string;
  expiresAt: Date;
  /** The scopes of the credential the session was opened from; empty for a password sign-in. */
  scopes: readonly string[];
  /** The last password entry; null when the session was opened from a credential (SSO link). */
  passwordAt: Date | null;
}

/** How a session begins: a password typed now, or a credential whose scopes bound it. */
export type SessionOrigin = { password: true } | { scopes: readonly string[] };

/**
 * What the session may do: a password sign-in every scope; a session from a credential that
 * credential's scopes, and nothing when it has none (fail closed, also for rows older than
 * these columns).
 */
export function sessionScopes(session: Pick<Session, 'scopes' | 'passwordAt'>): Scope[] {
  if (session.scopes.length > 0) return session.scopes.filter(isScope);
  return session.passwordAt ? [...ALL_SCOPES] : [];
}

/**
 * Sudo mode: 'ok' when the password was typed within SUDO_WINDOW_SECONDS, 'stale' when longer
 * ago (typing it again renews it), 'credential' for a session opened from a credential (never).
 */
export function sudoState(session: Pick<Session, 'passwordAt'>, now: Date): 'ok' | 'stale' | 'credential' {
  if (!session.passwordAt) return 'credential';
  return now.getTime() - session.passwordAt.getTime() <= SUDO_WINDOW_SECONDS * 1000 ? 'ok' : 'stale';
}

const SUDO_MINUTES = SUDO_WINDOW_SECONDS / 60;

/** An account-wide act asked with an API key, an OAuth token or a session opened from a sign-in link. */
export const PASSWORD_SIGN_IN_REQUIRED = refusal(
  403,
  'Only a dashboard session signed in with the password may do this: not an API key, an OAuth token or a session opened from a sign-in link',
  'PASSWORD_SIGN_IN_REQUIRED',
);
/** The password was typed too long ago: type it again (POST /dashboard/api/sudo, or the form's password field). */
export const SUDO_REQUIRED = refusal(
  403,
  `The password was entered in this session more than ${SUDO_MINUTES} minutes ago: confirm it (POST /dashboard/api/sudo) and retry`,
  'SUDO_REQUIRED',
);

/** The 403 of a session opened from a sign-in link, for the dashboard's own calls and forms. */
export function linkSessionRefusal() {
  return PASSWORD_SIGN_IN_REQUIRED.error(
    'This session was opened from a sign-in link, which cannot manage keys, apps or devices: sign in with your password.',
  );
}

export function sudoRefusal(prefix = 'Confirm your password') {
  return SUDO_REQUIRED.error(`${prefix}: it was entered more than ${SUDO_MINUTES} minutes ago.`);
}

/**
 * The same rule for an API operation (the account's password and sessions): only a dashboard
 * session signed in with the password, never a key or token, which could otherwise lock the
 * holder out; with `sudo`, the password typed within SUDO_WINDOW_SECONDS too. Returns the
 * session's id.
 */
export function requirePasswordPrincipal(
  principal: Principal | null,
  now: Date,
  what: string,
  opts: { sudo?: boolean } = {},
): string {
  if (principal?.kind !== 'session')
    throw PASSWORD_SIGN_IN_REQUIRED.error(
      `Only the console, signed in with the password, can ${what}: API keys and OAuth tokens cannot.`,
    );
  const state = sudoState({ passwordAt: principal.passwordAt ?? null }, now);
  if (state === 'credential')
    throw PASSWORD_SIGN_IN_REQUIRED.error(
      `This session was opened from a sign-in link, which cannot ${what}: sign in with your password.`,
    );
  if (opts.sudo && state === 'stale') throw sudoRefusal();
  return principal.credentialId;
}

/**
 * Account-wide reads (the API keys, the connected apps) need a password sign-in: a session
 * opened from a credential (SSO link) is refused, on the dashboard's API and in the graph alike
 * (no scope covers them, so the link maker's scopes cannot). A key or token is judged by its
 * scopes alone. `who` is a dashboard session, or a request's principal.
 */
export function requirePasswordSession(who: Pick<Session, 'passwordAt'> | Principal): void {
  const session = !('kind' in who) || who.kind === 'session';
  if (session && !who.passwordAt) throw linkSessionRefusal();
}

/** Checks e-mail and password; null when either is wrong (the caller says only "wrong e-mail or password"). */
export async function checkPassword(prisma: PrismaClient, email: string, password: string) {
  const account = await prisma.account.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH).catch(() => false);
  return ok && account?.passwordHash ? account : null;
}

export async function createSession(
  prisma: PrismaClient,
  accountId: string,
  now: Date,
  origin: SessionOrigin,
  /** The browser it signs in from, for the account's session list. */
  client: { userAgent?: string; address?: string } = {},
): Promise<{ secret: string; session: Session }> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  // Sessions past their expiry are of no use: clear the account's old ones on the way.
  await prisma.dashboardSession.deleteMany({ where: { accountId, expiresAt: { lte: now } } });
  const scopes = 'password' in origin ? [] : [...origin.scopes];
  const passwordAt = 'password' in origin ? now : null;
  const row = await prisma.dashboardSession.create({
    data: {
      id: newId(ID_PREFIX.dashboardSession, now.getTime()),
      accountId,
      tokenHash: hashSecret(secret),
      scopes,
      passwordAt,
      expiresAt,
      createdAt: now,
      lastSeenAt: now,
      userAgent: client.userAgent?.slice(0, 512) ?? null,
      clientAddress: client.address?.slice(0, 64) ?? null,
    },
  });
  return { secret, session: { id: row.id, accountId, csrfToken: csrfTokenFor(secret), expiresAt, scopes, passwordAt } };
}

/** The live session of a cookie's secret; with `cache`, one resolved in the last few seconds costs no query (auth/principal-cache.ts). */
export async function findSession(
  prisma: PrismaClient,
  secret: string | undefined,
  now: Date,
  cache?: PrincipalCache,
): Promise<Session | null> {
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const tokenHash = hashSecret(secret);
  const load = async () => {
    const row = await prisma.dashboardSession.findUnique({ where: { tokenHash } });
    return row
      ? {
          credentialId: row.id,
          expiresAt: row.expiresAt,
          value: { id: row.id, accountId: row.accountId, scopes: row.scopes ?? [], passwordAt: row.passwordAt },
        }
      : null;
  };
  const found = cache ? await cache.resolve(`ses:${tokenHash}`, now, load) : await load();
  if (!found || found.expiresAt! <= now) return null;
  return { ...found.value, csrfToken: csrfTokenFor(secret), expiresAt: found.expiresAt! };
}

/** Signs out: the session ends on every instance at once. */
export async function endSession(prisma: PrismaClient, secret: string, principals?: PrincipalCache): Promise<void> {
  const row = await prisma.dashboardSession.findUnique({
    where: { tokenHash: hashSecret(secret) },
    select: { id: true },
  });
  if (!row) return;
  await changingCredential(principals, row.id, () =>
    prisma.$transaction([
      prisma.dashboardSession.deleteMany({ where: { id: row.id } }),
      announceCredentialChange(prisma, row.id),
    ]),
  );
}

/**
 * The password was typed again in this session: sudo mode for SUDO_WINDOW_SECONDS more. Only a
 * password session renews (a session from a credential stays one); every instance forgets the
 * cached session first. False when the session is gone or is not a password session.
 */
export async function renewPassword(
  prisma: PrismaClient,
  sessionId: string,
  now: Date,
  principals?: PrincipalCache,
): Promise<boolean> {
  const [renewed] = await changingCredential(principals, sessionId, () =>
    prisma.$transaction([
      prisma.dashboardSession.updateMany({
        where: { id: sessionId, passwordAt: { not: null } },
        data: { passwordAt: now },
      }),
      announceCredentialChange(prisma, sessionId),
    ]),
  );
  return renewed.count === 1;
}

/** Parses a Cookie header into name → value (first occurrence wins). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (name && !(name in out)) out[name] = part.slice(i + 1).trim();
  }
  return out;
}
