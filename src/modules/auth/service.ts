import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, unauthorized } from '../../errors.ts';
import { isAccessTokenShape, lookupAccessToken } from '../oauth/service.ts';
import {
  announceCredentialChange,
  changingCredential,
  type CachedCredential,
  type PrincipalCache,
} from './principal-cache.ts';
import { hashSecret, randomBase62 } from './secrets.ts';
import { DEFAULT_SCOPES, isScope, type Scope } from '../../scopes.ts';

/**
 * Who is calling: resolved once per request from the Bearer credential (an API key or an
 * OAuth access token), or from the dashboard's session cookie on /graphql.
 */
export interface Principal {
  accountId: string;
  /** The API key id, the OAuth grant id (all of a grant's access tokens share a rate limit), or the session id. */
  credentialId: string;
  kind: 'api_key' | 'access_token' | 'session';
  scopes: ReadonlySet<Scope>;
  /** A dashboard session's last password entry (sudo mode); null for one opened from a sign-in link. */
  passwordAt?: Date | null;
}

const KEY_BODY_LENGTH = 40; // 40 base62 chars ≈ 238 bits
const API_KEY_PATTERN = /^svc_[A-Za-z0-9]{40}$/;

export interface MintedKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
  createdAt: Date;
}

function parseScopes(input: unknown, field = 'scopes'): Scope[] {
  if (input === undefined || input === null) return [...DEFAULT_SCOPES];
  if (!Array.isArray(input) || input.length === 0)
    throw badRequest(`${field} must be a non-empty array of scope names.`, field);
  const unknown = input.filter((s) => typeof s !== 'string' || !isScope(s));
  if (unknown.length) throw badRequest(`${field} has unknown scope(s): ${unknown.map(String).join(', ')}.`, field);
  return [...new Set(input as Scope[])];
}

/** Mints an API key. The full key is returned here once; only its SHA-256 is stored. */
export async function mintApiKey(
  prisma: PrismaClient,
  accountId: string,
  opts: { name?: string; scopes?: unknown; expiresAt?: Date | null },
): Promise<MintedKey> {
  const scopes = parseScopes(opts.scopes);
  const key = `svc_${randomBase62(KEY_BODY_LENGTH)}`;
  const row = await prisma.apiKey.create({
    data: {
      id: newId(ID_PREFIX.apiKey),
      accountId,
      name: opts.name ?? 'API key',
      prefix: key.slice(0, 12),
      keyHash: hashSecret(key),
      scopes,
      expiresAt: opts.expiresAt ?? null,
    },
  });
  return {
    id: row.id,
    key,
    prefix: row.prefix,
    name: row.name,
    scopes,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

/**
 * Resolves a Bearer credential. The lookup is by hash (an index seek, no comparison of
 * secrets in application code), so timing tells nothing about stored keys. With `cache`, a
 * credential resolved within the last few seconds costs no query (principal-cache.ts); expiry
 * and audience are checked on every use all the same.
 * Missing credential → null; malformed, unknown, revoked or expired → 401, and so is an access
 * token bound (RFC 8707) to another resource than `audience`, the surface being called.
 */
export async function authenticate(
  prisma: PrismaClient,
  authorization: string | null,
  now: Date,
  audience: string,
  cache?: PrincipalCache,
): Promise<Principal | null> {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <API key>".');
  const token = match[1];
  if (token.startsWith('svc_at_')) {
    // OAuth access token: exactly the scopes granted; refresh tokens never authenticate calls.
    const access = isAccessTokenShape(token)
      ? await cached(cache, `at:${hashSecret(token)}`, now, async () => {
          const found = await lookupAccessToken(prisma, token, now);
          if (!found) return null;
          const principal: Principal = {
            accountId: found.accountId,
            credentialId: found.grantId,
            kind: 'access_token',
            scopes: new Set(found.scopes),
          };
          return {
            credentialId: found.grantId,
            expiresAt: found.expiresAt,
            value: { principal, resource: found.resource },
          };
        })
      : null;
    if (!access || (access.expiresAt && access.expiresAt <= now))
      throw unauthorized('The access token is invalid, expired or revoked.');
    const { principal, resource } = access.value;
    if (resource && resource !== audience)
      throw unauthorized(`This access token was issued for ${resource}; it is not accepted here.`);
    return principal;
  }
  if (token.startsWith('svc_rt_'))
    throw unauthorized('A refresh token cannot authenticate API calls; exchange it at the token endpoint.');
  if (!API_KEY_PATTERN.test(token)) throw unauthorized('The API key is malformed.');
  const key = await cached(cache, `key:${hashSecret(token)}`, now, async () => {
    const row = await prisma.apiKey.findUnique({ where: { keyHash: hashSecret(token) } });
    if (!row || row.revokedAt) return null;
    const principal: Principal = {
      accountId: row.accountId,
      credentialId: row.id,
      kind: 'api_key',
      scopes: new Set(row.scopes.filter(isScope)),
    };
    return { credentialId: row.id, expiresAt: row.expiresAt, value: principal };
  });
  if (!key) throw unauthorized('The API key is invalid or has been revoked.');
  if (key.expiresAt && key.expiresAt <= now) throw unauthorized('The API key has expired.');
  return key.value;
}

function cached<T>(
  cache: PrincipalCache | undefined,
  key: string,
  now: Date,
  load: () => Promise<CachedCredential<T> | null>,
): Promise<CachedCredential<T> | null> {
  return cache ? cache.resolve(key, now, load) : load();
}

type ApiKeyRow = NonNullable<Awaited<ReturnType<PrismaClient['apiKey']['findFirst']>>>;

/** A key as listed: prefix only, never the key or its hash. */
function apiKeyView(k: ApiKeyRow) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}

/** The dashboard's key list: prefixes only, never the key. */
export async function listApiKeys(prisma: PrismaClient, accountId: string) {
  const rows = await prisma.apiKey.findMany({ where: { accountId, revokedAt: null }, orderBy: { createdAt: 'desc' } });
  return rows.map(apiKeyView);
}

/** The graph's read by id: live keys, as the list shows them (a revoked key reads as missing). */
export async function apiKeysByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.apiKey.findMany({ where: { id: { in: [...ids] }, revokedAt: null } })).map(apiKeyView);
}

/** Revokes a key of the account at once: the next request with it answers 401, on every instance. */
export async function revokeApiKey(
  prisma: PrismaClient,
  accountId: string,
  keyId: string,
  now: Date,
  principals?: PrincipalCache,
): Promise<boolean> {
  const [{ count }] = await changingCredential(principals, keyId, () =>
    prisma.$transaction([
      prisma.apiKey.updateMany({ where: { id: keyId, accountId, revokedAt: null }, data: { revokedAt: now } }),
      announceCredentialChange(prisma, keyId),
    ]),
  );
  return count === 1;
}

/**
 * Changes a live key's scopes and/or expiry (null: never expires); the next request with it, on
 * any instance, has the new ones. Null when the account has no such live key.
 */
export async function updateApiKey(
  prisma: PrismaClient,
  accountId: string,
  keyId: string,
  change: { scopes?: unknown; expiresAt?: Date | null },
  principals?: PrincipalCache,
) {
  const data = {
    ...(change.scopes !== undefined ? { scopes: parseScopes(change.scopes) } : {}),
    ...(change.expiresAt !== undefined ? { expiresAt: change.expiresAt } : {}),
  };
  const [{ count }] = await changingCredential(principals, keyId, () =>
    prisma.$transaction([
      prisma.apiKey.updateMany({ where: { id: keyId, accountId, revokedAt: null }, data }),
      announceCredentialChange(prisma, keyId),
    ]),
  );
  if (count !== 1) return null;
  const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

/**
 * Whether a credential resolved earlier still stands: not revoked, not expired, grant or
 * session still alive. A subscription with no way to re-resolve its credential re-checks with
 * it (live.ts); graphql-ws re-authenticates the secret it was given instead, which also sees
 * an access token's own expiry and a key's new scopes.
 */
export async function credentialStillValid(prisma: PrismaClient, principal: Principal, now: Date): Promise<boolean> {
  switch (principal.kind) {
    case 'api_key': {
      const key = await prisma.apiKey.findUnique({
        where: { id: principal.credentialId },
        select: { revokedAt: true, expiresAt: true },
      });
      return Boolean(key && !key.revokedAt && (!key.expiresAt || key.expiresAt > now));
    }
    case 'access_token': {
      const grant = await prisma.oAuthGrant.findUnique({
        where: { id: principal.credentialId },
        select: { revokedAt: true },
      });
      return Boolean(grant && !grant.revokedAt);
    }
    case 'session': {
      const session = await prisma.dashboardSession.findUnique({
        where: { id: principal.credentialId },
        select: { expiresAt: true },
      });
      return Boolean(session && session.expiresAt > now);
    }
  }
}
