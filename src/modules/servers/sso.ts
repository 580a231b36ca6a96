import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest } from '../../errors.ts';
import { getServer, type ServiceContext } from './server-row.ts';

// One-time login links into the server's control panel (dashboard SSO).

/** Lifetime of a dashboard login link, on the simulated clock. */
const SSO_TTL_SECONDS = 300;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A relative dashboard path: one leading slash, no scheme, no host, no backslash, no control characters. */
function checkNextPath(next: string): string {
  const ok =
    next.length <= 512 &&
    next.startsWith('/') &&
    !next.startsWith('//') &&
    !/[\\\s\x00-\x1f\x7f]/.test(next) &&
    !/^\/[^/?#]*:/.test(next) &&
    !next
      .split(/[?#]/)[0]
      .split('/')
      .some((seg) => seg === '..' || decodeSafe(seg).includes('/') || decodeSafe(seg).includes('\\'));
  if (!ok)
    throw badRequest(
      'next must be a relative dashboard path starting with a single "/" (no scheme, host or "..").',
      'next',
    );
  return next;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '\\';
  }
}

/**
 * A short-lived, single-use URL that signs into the dashboard on this server's page (or on
 * `next`). Only the token's SHA-256 is stored; the URL is shown once. The link keeps the
 * caller's scopes: the session it opens may do no more than the credential that asked for it.
 */
export async function createSsoLink(ctx: ServiceContext, serverId: string, next: string | null | undefined) {
  const server = await getServer(ctx.db, serverId);
  const target = next === undefined || next === null ? `/servers/${serverId}` : checkNextPath(next);
  const now = ctx.app.clock.now();
  const token = `sso_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + SSO_TTL_SECONDS * 1000);
  const scopes = [...(ctx.principal?.scopes ?? [])].sort();
  await ctx.db.ssoToken.create({
    data: {
      id: newId(ID_PREFIX.ssoToken, now.getTime()),
      accountId: server.accountId,
      serverId,
      tokenHash: hashToken(token),
      next: target,
      scopes,
      expiresAt,
      createdAt: now,
    },
  });
  return { url: `${ctx.app.config.publicBaseUrl}/sso/${token}?next=${encodeURIComponent(target)}`, expiresAt };
}

const usable = (tokenHash: string, now: Date) => ({ tokenHash, usedAt: null, expiresAt: { gt: now } });

/**
 * The account a dashboard login token would sign into, without redeeming it (the landing asks
 * first when another account is signed in). Null for an unknown, used or expired token.
 */
export async function peekSsoToken(
  prisma: PrismaClient,
  token: string,
  now: Date,
): Promise<{ accountId: string } | null> {
  return prisma.ssoToken.findFirst({ where: usable(hashToken(token), now), select: { accountId: true } });
}

/**
 * Redeems a dashboard login token (for the dashboard's /sso/:token landing): valid once,
 * before its expiry. The conditional UPDATE makes two concurrent redemptions yield one success.
 * Returns null for an unknown, used or expired token.
 */
export async function consumeSsoToken(
  prisma: PrismaClient,
  token: string,
  now: Date,
): Promise<{ accountId: string; serverId: string; next: string; scopes: string[] } | null> {
  const tokenHash = hashToken(token);
  const { count } = await prisma.ssoToken.updateMany({
    where: usable(tokenHash, now),
    data: { usedAt: now },
  });
  if (count !== 1) return null;
  const row = await prisma.ssoToken.findUniqueOrThrow({ where: { tokenHash } });
  // A link made before links kept their scopes has none: its session may do nothing.
  return { accountId: row.accountId, serverId: row.serverId, next: row.next, scopes: row.scopes ?? [] };
}
