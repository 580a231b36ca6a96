import { randomBytes, randomInt } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../db/ids.ts';
import { announceCredentialChange, changingCredential, type PrincipalCache } from '../auth/principal-cache.ts';
import { hashSecret, randomBase62 } from '../auth/secrets.ts';
import { ALL_SCOPES, DEFAULT_SCOPES, isScope, type Scope } from '../../scopes.ts';
import {
  allowsDeviceGrant,
  DEVICE_CODE_GRANT_TYPE,
  isVerifiedClient,
  requireClient,
  type DocumentPolicy,
} from './clients.ts';
import { OAuthError } from './errors.ts';

export { OAuthError, DEVICE_CODE_GRANT_TYPE };

/**
 * OAuth 2.0 device authorization grant (RFC 8628) on our own store: device codes, grants
 * (connected apps), access and refresh tokens, rotation, reuse detection and revocation.
 * Every expiry reads the simulated clock (`now` from the caller), like every other expiry
 * of the platform; it runs at real speed unless an operator advances it.
 */

/** Seconds a device code stays valid. */
const DEVICE_CODE_TTL_SECONDS = 600;
/** Seconds a client waits between polls at first; each slow_down adds 5 (RFC 8628 §3.5). */
const DEFAULT_POLL_INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;
/** Access token (`svc_at_`) lifetime. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Refresh token (`svc_rt_`) lifetime, counted from its issue (each rotation issues a new one). */
const REFRESH_TOKEN_TTL_SECONDS = 90 * 86400;

/** No vowels (no words), no 0/O, 1/I/L, 2/Z, 5/S, 8/B: 20 letters a person cannot confuse (RFC 8628 §6.1). */
const USER_CODE_ALPHABET = 'CDFGHJKMNPQRTVWXY' + '347';
const USER_CODE_LENGTH = 8;

const ACCESS_TOKEN = /^svc_at_[A-Za-z0-9]{40}$/;
const REFRESH_TOKEN = /^svc_rt_[A-Za-z0-9]{40}$/;

export const PREFIX = { device: 'odc', grant: 'ogr', token: 'otk', code: 'oco' } as const;

// ---------------------------------------------------------------- scopes

/** A space-separated scope parameter (RFC 6749 §3.3); absent → the default scopes. */
export function parseScopeParam(value: string | undefined): Scope[] {
  if (value === undefined || value.trim() === '') return [...DEFAULT_SCOPES];
  const names = [...new Set(value.trim().split(/\s+/))];
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope(s): ${unknown.join(' ')}.`);
  return ALL_SCOPES.filter((s) => names.includes(s));
}

// ---------------------------------------------------------------- device authorization

function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Upper-cases and drops everything but the alphabet's characters (spaces, dashes) before lookup. */
function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH || [...code].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return code;
}

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** What the token, revocation and device endpoints know of the client: its id, and how to fetch a metadata document. */
export interface ClientInput {
  clientId?: string;
  documents?: DocumentPolicy;
}

export async function startDeviceAuthorization(
  prisma: PrismaClient,
  input: ClientInput & { scope?: string },
  baseUrl: string,
  now: Date,
) {
  const client = await requireClient(prisma, input.clientId, now, input.documents);
  if (!allowsDeviceGrant(client))
    throw new OAuthError(
      'unauthorized_client',
      `This client is not registered for the device grant (grant_types must include ${DEVICE_CODE_GRANT_TYPE}).`,
    );
  const scopes = parseScopeParam(input.scope);
  // Expired codes are of no use to anyone; clearing them keeps user codes unique for longer.
  await prisma.oAuthDeviceCode.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 86400_000) } } });
  const deviceCode = randomBytes(32).toString('base64url');
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await prisma.oAuthDeviceCode.create({
        data: {
          id: newId(PREFIX.device, now.getTime()),
          clientId: client.id,
          deviceCodeHash: hashSecret(deviceCode),
          userCodeHash: hashSecret(userCode),
          scopes,
          grantedScopes: [],
          interval: DEFAULT_POLL_INTERVAL_SECONDS,
          expiresAt: new Date(now.getTime() + DEVICE_CODE_TTL_SECONDS * 1000),
          createdAt: now,
        },
      });
      const shown = formatUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: `${baseUrl}/oauth/device`,
        verification_uri_complete: `${baseUrl}/oauth/device?user_code=${shown}`,
        expires_in: DEVICE_CODE_TTL_SECONDS,
        interval: DEFAULT_POLL_INTERVAL_SECONDS,
      };
    } catch (err) {
      // A user-code collision (1 in 10^10 per live code) hits the unique index: draw again.
      if (attempt >= 3 || (err as { code?: string }).code !== 'P2002') throw err;
    }
  }
}

/** What the approval page shows for a user code; null when unknown, expired or already used. */
export async function findPendingDevice(prisma: PrismaClient, userCodeInput: string, now: Date) {
  const code = normalizeUserCode(userCodeInput);
  if (!code) return null;
  const row = await prisma.oAuthDeviceCode.findUnique({
    where: { userCodeHash: hashSecret(code) },
    include: { client: true },
  });
  if (row?.status !== 'pending' || row.expiresAt <= now) return null;
  return {
    id: row.id,
    userCode: formatUserCode(code),
    client: { id: row.client.id, name: row.client.name, verified: isVerifiedClient(row.client) },
    scopes: row.scopes as Scope[],
    expiresAt: row.expiresAt,
  };
}

/**
 * The account holder's answer at /oauth/device. Approve may grant fewer scopes than asked
 * (never more). Returns false when the code is unknown, expired or already answered.
 */
export async function decideDevice(
  prisma: PrismaClient,
  accountId: string,
  userCodeInput: string,
  decision: { approve: true; scopes?: unknown } | { approve: false },
  now: Date,
): Promise<{ ok: true; scopes: Scope[] } | { ok: false; reason: 'unknown' | 'invalid_scope' }> {
  const pending = await findPendingDevice(prisma, userCodeInput, now);
  if (!pending) return { ok: false, reason: 'unknown' };
  let granted: Scope[] = [];
  if (decision.approve) {
    const asked = decision.scopes;
    if (asked === undefined) granted = pending.scopes;
    else if (!Array.isArray(asked) || asked.some((s) => typeof s !== 'string' || !pending.scopes.includes(s as Scope)))
      return { ok: false, reason: 'invalid_scope' };
    else granted = ALL_SCOPES.filter((s) => asked.includes(s));
    if (!granted.length) return { ok: false, reason: 'invalid_scope' };
  }
  const { count } = await prisma.oAuthDeviceCode.updateMany({
    where: { id: pending.id, status: 'pending', expiresAt: { gt: now } },
    data: { status: decision.approve ? 'approved' : 'denied', accountId, grantedScopes: granted },
  });
  return count === 1 ? { ok: true, scopes: granted } : { ok: false, reason: 'unknown' };
}

// ---------------------------------------------------------------- token endpoint

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export async function issueTokens(
  tx: Tx,
  grantId: string,
  scopes: readonly string[],
  now: Date,
): Promise<TokenResponse> {
  const access = `svc_at_${randomBase62(40)}`;
  const refresh = `svc_rt_${randomBase62(40)}`;
  await tx.oAuthToken.createMany({
    data: [
      {
        id: newId(PREFIX.token, now.getTime()),
        grantId,
        kind: 'access',
        tokenHash: hashSecret(access),
        scopes: [...scopes],
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
        createdAt: now,
      },
      {
        id: newId(PREFIX.token, now.getTime()),
        grantId,
        kind: 'refresh',
        tokenHash: hashSecret(refresh),
        scopes: [],
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
        createdAt: now,
      },
    ],
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refresh,
    scope: scopes.join(' '),
  };
}

export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). */
export async function exchangeDeviceCode(
  prisma: PrismaClient,
  input: ClientInput & { deviceCode?: string },
  now: Date,
): Promise<TokenResponse> {
  const client = await requireClient(prisma, input.clientId, now, input.documents);
  if (!input.deviceCode) throw new OAuthError('invalid_request', 'device_code is required.');
  const row = await prisma.oAuthDeviceCode.findUnique({ where: { deviceCodeHash: hashSecret(input.deviceCode) } });
  if (!row || row.clientId !== client.id) throw new OAuthError('invalid_grant', 'Unknown device_code.');
  if (row.status === 'exchanged')
    throw new OAuthError('invalid_grant', 'This device_code was already exchanged for tokens.');
  if (row.expiresAt <= now)
    throw new OAuthError('expired_token', 'The device_code has expired; start a new device authorization.');
  if (row.status === 'denied') throw new OAuthError('access_denied', 'The user denied the authorization request.');
  if (row.status === 'approved') {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.oAuthDeviceCode.updateMany({
        where: { id: row.id, status: 'approved' },
        data: { status: 'exchanged', lastPolledAt: now },
      });
      if (count !== 1) throw new OAuthError('invalid_grant', 'This device_code was already exchanged for tokens.');
      const grant = await tx.oAuthGrant.create({
        data: {
          id: newId(PREFIX.grant, now.getTime()),
          accountId: row.accountId!,
          clientId: client.id,
          scopes: row.grantedScopes,
          createdAt: now,
        },
      });
      return issueTokens(tx, grant.id, row.grantedScopes, now);
    });
  }
  // Pending. Polling sooner than the interval is slow_down, and the interval grows by 5 s
  // (kept on the row, so every instance agrees). The conditional update serialises racing polls.
  const tooSoon = row.lastPolledAt !== null && now.getTime() - row.lastPolledAt.getTime() < row.interval * 1000;
  const { count } = await prisma.oAuthDeviceCode.updateMany({
    where: { id: row.id, status: 'pending', lastPolledAt: row.lastPolledAt },
    data: { lastPolledAt: now, ...(tooSoon ? { interval: row.interval + SLOW_DOWN_STEP_SECONDS } : {}) },
  });
  if (tooSoon || count !== 1)
    throw new OAuthError(
      'slow_down',
      `Polling too fast: wait at least ${row.interval + SLOW_DOWN_STEP_SECONDS} seconds between requests.`,
    );
  throw new OAuthError('authorization_pending', 'The user has not yet approved the request.');
}

/**
 * grant_type=refresh_token: single use. Presenting a valid, unspent refresh token spends it
 * and issues a new pair; presenting a spent one is reuse (a stolen copy, or the victim after
 * the thief) and revokes the whole grant with all its tokens (OAuth 2.0 Security BCP §4.14).
 */
export async function refreshTokens(
  prisma: PrismaClient,
  input: ClientInput & { refreshToken?: string; scope?: string; resource?: string },
  now: Date,
  principals?: PrincipalCache,
): Promise<TokenResponse> {
  const client = await requireClient(prisma, input.clientId, now, input.documents);
  if (!input.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required.');
  if (!REFRESH_TOKEN.test(input.refreshToken)) throw new OAuthError('invalid_grant', 'The refresh token is invalid.');
  const row = await prisma.oAuthToken.findUnique({
    where: { tokenHash: hashSecret(input.refreshToken) },
    include: { grant: true },
  });
  if (row?.kind !== 'refresh' || row.grant.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The refresh token is invalid.');
  if (row.grant.revokedAt || row.revokedAt)
    throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
  if (row.expiresAt <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired.');
  // RFC 8707 §2.2: a refresh may name the grant's resource again, never another one.
  if (input.resource !== undefined && input.resource !== row.grant.resource) {
    throw new OAuthError(
      'invalid_target',
      row.grant.resource
        ? `This grant is bound to ${row.grant.resource}.`
        : 'This grant is not bound to a resource; refresh it without one.',
    );
  }
  let scopes = row.grant.scopes as Scope[];
  if (input.scope !== undefined && input.scope.trim() !== '') {
    const asked = [...new Set(input.scope.trim().split(/\s+/))];
    if (asked.some((s) => !scopes.includes(s as Scope)))
      throw new OAuthError('invalid_scope', 'scope may only narrow the scopes of the grant.');
    scopes = scopes.filter((s) => asked.includes(s));
  }
  const outcome = await prisma.$transaction(async (tx) => {
    const { count } = await tx.oAuthToken.updateMany({
      where: { id: row.id, usedAt: null, revokedAt: null },
      data: { usedAt: now },
    });
    if (count !== 1) return null;
    await tx.oAuthGrant.update({ where: { id: row.grantId }, data: { lastUsedAt: now } });
    return issueTokens(tx, row.grantId, scopes, now);
  });
  if (outcome) return outcome;
  await revokeGrantById(prisma, row.grantId, 'refresh_token_reuse', now, principals);
  throw new OAuthError('invalid_grant', 'The refresh token was already used; the grant has been revoked.');
}

// ---------------------------------------------------------------- revocation

/** Revokes a grant and every token of it; `principals`: this instance's cache, so the change is answered only once every instance has forgotten the grant. */
export async function revokeGrantById(
  prisma: PrismaClient,
  grantId: string,
  reason: string,
  now: Date,
  principals: PrincipalCache | undefined,
): Promise<boolean> {
  const [{ count }] = await changingCredential(principals, grantId, () =>
    prisma.$transaction([
      prisma.oAuthGrant.updateMany({
        where: { id: grantId, revokedAt: null },
        data: { revokedAt: now, revokedReason: reason },
      }),
      prisma.oAuthToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: now } }),
      announceCredentialChange(prisma, grantId),
    ]),
  );
  return count === 1;
}

/**
 * RFC 7009. A refresh token revokes its grant (and so every token of it); an access token
 * revokes itself. Unknown tokens, and tokens of another client, answer success all the same
 * (§2.2), so the endpoint tells nothing about tokens it did not issue to the caller.
 */
export async function revokeToken(
  prisma: PrismaClient,
  input: ClientInput & { token?: string },
  now: Date,
  principals?: PrincipalCache,
): Promise<void> {
  const client = await requireClient(prisma, input.clientId, now, input.documents);
  if (!input.token) throw new OAuthError('invalid_request', 'token is required.');
  if (!ACCESS_TOKEN.test(input.token) && !REFRESH_TOKEN.test(input.token)) return;
  const row = await prisma.oAuthToken.findUnique({
    where: { tokenHash: hashSecret(input.token) },
    include: { grant: true },
  });
  if (!row || row.grant.clientId !== client.id) return;
  if (row.kind === 'refresh') await revokeGrantById(prisma, row.grantId, 'revocation_endpoint', now, principals);
  // Cached principals are kept per grant: every token of it is looked up afresh (principal-cache.ts).
  else {
    await changingCredential(principals, row.grantId, () =>
      prisma.$transaction([
        prisma.oAuthToken.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: now } }),
        announceCredentialChange(prisma, row.grantId),
      ]),
    );
  }
}

// ---------------------------------------------------------------- connected apps (dashboard)

export async function listGrants(prisma: PrismaClient, accountId: string) {
  const rows = await prisma.oAuthGrant.findMany({
    where: { accountId, revokedAt: null },
    include: { client: true },
    orderBy: { createdAt: 'desc' },
  });
  return rows.map((g) => ({
    id: g.id,
    client: { id: g.client.id, name: g.client.name },
    redirectHost: g.redirectUri ? new URL(g.redirectUri).host : null,
    resource: g.resource,
    scopes: g.scopes,
    createdAt: g.createdAt.toISOString(),
    lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
  }));
}

/** The account holder disconnects an app: the grant and every token of it stop working now. */
export async function revokeGrant(
  prisma: PrismaClient,
  accountId: string,
  grantId: string,
  now: Date,
  principals?: PrincipalCache,
): Promise<boolean> {
  const grant = await prisma.oAuthGrant.findFirst({
    where: { id: grantId, accountId, revokedAt: null },
    select: { id: true },
  });
  return grant ? revokeGrantById(prisma, grant.id, 'dashboard', now, principals) : false;
}

// ---------------------------------------------------------------- access token lookup

/** A grant's "last used" moves at most this often (seconds): a write per call would cost every request. */
const LAST_USED_RESOLUTION_SECONDS = 60;

/**
 * Resolves an `svc_at_` access token: by SHA-256, not expired, not revoked, and its grant not
 * revoked (checked on every lookup, so revoking a grant takes effect at once). Null when it
 * does not resolve. `resource` is what the token is bound to (RFC 8707), null when unbound.
 */
export async function lookupAccessToken(prisma: PrismaClient, token: string, now: Date) {
  if (!ACCESS_TOKEN.test(token)) return null;
  const row = await prisma.oAuthToken.findUnique({ where: { tokenHash: hashSecret(token) }, include: { grant: true } });
  if (row?.kind !== 'access' || row.revokedAt || row.grant.revokedAt || row.expiresAt <= now) return null;
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_SECONDS * 1000);
  if (!row.grant.lastUsedAt || row.grant.lastUsedAt < stale) {
    await prisma.oAuthGrant.updateMany({
      where: { id: row.grantId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] },
      data: { lastUsedAt: now },
    });
  }
  const scopes = row.scopes.filter((s) => row.grant.scopes.includes(s) && isScope(s)) as Scope[];
  return {
    accountId: row.grant.accountId,
    grantId: row.grantId,
    scopes,
    resource: row.grant.resource,
    expiresAt: row.expiresAt,
  };
}

export const isAccessTokenShape = (token: string) => ACCESS_TOKEN.test(token);
