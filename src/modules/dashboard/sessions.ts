import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../db/ids.ts';
import { hashSecret } from '../auth/secrets.ts';
import { verifyPassword } from '../auth/password.ts';
import { announceCredentialChange, changingCredential, type PrincipalCache } from '../auth/principal-cache.ts';

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

// A fixed scrypt hash of a random password, verified against when the e-mail is unknown so
// both answers take the same time.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export function csrfTokenFor(secret: string): string {
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
}

/** Checks e-mail and password; null when either is wrong (the caller says only "wrong e-mail or password"). */
export async function checkPassword(prisma: PrismaClient, email: string, password: string) {
  const account = await prisma.account.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH).catch(() => false);
  return ok && account?.passwordHash ? account : null;
}

export async function createSession(prisma: PrismaClient, accountId: string, now: Date): Promise<{ secret: string; session: Session }> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  // Sessions past their expiry are of no use: clear the account's old ones on the way.
  await prisma.dashboardSession.deleteMany({ where: { accountId, expiresAt: { lte: now } } });
  const row = await prisma.dashboardSession.create({ data: { id: newId('ses', now.getTime()), accountId, tokenHash: hashSecret(secret), expiresAt, createdAt: now } });
  return { secret, session: { id: row.id, accountId, csrfToken: csrfTokenFor(secret), expiresAt } };
}

/** The live session of a cookie's secret; with `cache`, one resolved in the last few seconds costs no query (auth/principal-cache.ts). */
export async function findSession(prisma: PrismaClient, secret: string | undefined, now: Date, cache?: PrincipalCache): Promise<Session | null> {
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const tokenHash = hashSecret(secret);
  const load = async () => {
    const row = await prisma.dashboardSession.findUnique({ where: { tokenHash } });
    return row ? { credentialId: row.id, expiresAt: row.expiresAt, value: { id: row.id, accountId: row.accountId } } : null;
  };
  const found = cache ? await cache.resolve(`ses:${tokenHash}`, now, load) : await load();
  if (!found || found.expiresAt! <= now) return null;
  return { ...found.value, csrfToken: csrfTokenFor(secret), expiresAt: found.expiresAt! };
}

/** Signs out: the session ends on every instance at once. */
export async function endSession(prisma: PrismaClient, secret: string, principals?: PrincipalCache): Promise<void> {
  const row = await prisma.dashboardSession.findUnique({ where: { tokenHash: hashSecret(secret) }, select: { id: true } });
  if (!row) return;
  await changingCredential(principals, row.id, () => prisma.$transaction([prisma.dashboardSession.deleteMany({ where: { id: row.id } }), announceCredentialChange(prisma, row.id)]));
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
