import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../db/ids.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { Scope } from '../../scopes.ts';
import { redirectUriRegistered } from './client-metadata.ts';
import { isVerifiedClient, requireClient, type DocumentPolicy } from './clients.ts';
import { OAuthError } from './errors.ts';
import { parseResource } from './resources.ts';
import type { PrincipalCache } from '../auth/principal-cache.ts';
import {
  issueTokens,
  parseScopeParam,
  PREFIX,
  revokeGrantById,
  type ClientInput,
  type TokenResponse,
} from './service.ts';

/**
 * The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636, OAuth 2.1): validating an
 * authorization request, issuing a code once the account holder consents, and exchanging it.
 * Codes are single use, live 60 s of the simulated clock, and are stored as SHA-256 only.
 */

/** Seconds an authorization code stays valid. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** Longest `state` accepted (it travels back in a URL). */
const MAX_STATE_LENGTH = 1024;
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface AuthorizationRequest {
  /** `verified`: clients.ts isVerifiedClient; a self-registered client's name is its own claim. */
  client: { id: string; name: string; verified: boolean };
  redirectUri: string;
  state?: string;
  scopes: Scope[];
  resource?: string;
  codeChallenge: string;
}

/** Shown to the person at the authorization server, never sent to a redirect URI: the client or its redirect URI cannot be trusted. */
export class AuthorizationPageError extends Error {}

/**
 * Sent back to the client's (checked) redirect URI as `error=` (RFC 6749 §4.1.2.1): at once
 * for a verified client, through a page and the person's click for any other (RFC 9700
 * §4.11.2: an open redirector otherwise).
 */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
    readonly clientVerified: boolean,
  ) {
    super(description);
  }
}

/** The redirect URI with the answer's parameters and `iss` (RFC 9207) added. */
export function redirectWith(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * Checks an authorization request (the GET query, or the consent form's fields). The client
 * and its redirect URI come first: until both are known good, errors are AuthorizationPageError.
 */
export async function validateAuthorizationRequest(
  prisma: PrismaClient,
  params: URLSearchParams,
  ctx: { baseUrl: string; now: Date; documents: DocumentPolicy },
): Promise<AuthorizationRequest> {
  const clientIds = params.getAll('client_id');
  if (clientIds.length !== 1 || !clientIds[0])
    throw new AuthorizationPageError('The request names no client (client_id), or names it twice.');
  let client: Awaited<ReturnType<typeof requireClient>>;
  try {
    client = await requireClient(prisma, clientIds[0], ctx.now, ctx.documents);
  } catch (err) {
    if (err instanceof OAuthError)
      throw new AuthorizationPageError(`The application asking for access is not known here: ${err.description}`);
    throw err;
  }
  const redirects = params.getAll('redirect_uri');
  if (redirects.length > 1) throw new AuthorizationPageError('The request names redirect_uri twice.');
  const redirectUri = redirects[0] || (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri)
    throw new AuthorizationPageError(
      'The request names no redirect_uri, and the application registered more than one.',
    );
  if (!redirectUriRegistered(client.redirectUris, redirectUri))
    throw new AuthorizationPageError(
      `The redirect URI ${redirectUri.slice(0, 200)} is not registered for ${client.name}.`,
    );

  const stateValue = params.get('state') ?? undefined;
  const state = stateValue && stateValue.length <= MAX_STATE_LENGTH ? stateValue : undefined;
  const verified = isVerifiedClient(client);
  const fail = (error: string, description: string) =>
    new AuthorizationRedirectError(error, description, redirectUri, state, verified);
  if (stateValue && !state) throw fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters.`);
  for (const name of ['response_type', 'code_challenge', 'code_challenge_method', 'scope', 'state']) {
    if (params.getAll(name).length > 1) throw fail('invalid_request', `${name} is repeated.`);
  }
  const responseType = params.get('response_type');
  if (!responseType) throw fail('invalid_request', 'response_type is required.');
  if (responseType !== 'code') throw fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!client.grantTypes.includes('authorization_code'))
    throw fail('unauthorized_client', 'This client is not registered for the authorization code grant.');
  if (params.get('code_challenge_method') !== 'S256')
    throw fail('invalid_request', 'PKCE is required with code_challenge_method=S256 (plain is not accepted).');
  const codeChallenge = params.get('code_challenge') ?? '';
  if (!CODE_CHALLENGE.test(codeChallenge))
    throw fail('invalid_request', 'code_challenge must be the 43-character BASE64URL SHA-256 of the code verifier.');
  const resources = params.getAll('resource');
  if (resources.length > 1) throw fail('invalid_target', 'Name one resource per authorization request.');
  try {
    return {
      client: { id: client.id, name: client.name, verified },
      redirectUri,
      state,
      codeChallenge,
      scopes: parseScopeParam(params.get('scope') ?? undefined),
      resource: parseResource(resources[0], ctx.baseUrl),
    };
  } catch (err) {
    if (err instanceof OAuthError) throw fail(err.error, err.description);
    throw err;
  }
}

/** The account holder approved `granted` (a non-empty subset of the request's scopes): a new code. */
export async function issueAuthorizationCode(
  prisma: PrismaClient,
  request: AuthorizationRequest,
  accountId: string,
  granted: Scope[],
  now: Date,
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  // Codes a day past their expiry serve no one, not even reuse detection.
  await prisma.oAuthAuthorizationCode.deleteMany({
    where: { expiresAt: { lt: new Date(now.getTime() - 86_400_000) } },
  });
  await prisma.oAuthAuthorizationCode.create({
    data: {
      id: newId(PREFIX.code, now.getTime()),
      codeHash: hashSecret(code),
      clientId: request.client.id,
      accountId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: granted,
      resource: request.resource ?? null,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
      createdAt: now,
    },
  });
  return code;
}

const REUSED = 'This authorization code was already used; the tokens issued from it have been revoked.';

/**
 * grant_type=authorization_code. Any failure after the code is found burns it (a missing or
 * wrong verifier, redirect URI, client or resource); a second use of a spent code revokes the grant
 * it created, with every token (RFC 6749 §4.1.2, OAuth 2.0 Security BCP §4.5).
 */
export async function exchangeAuthorizationCode(
  prisma: PrismaClient,
  input: ClientInput & { code?: string; redirectUri?: string; codeVerifier?: string; resource?: string },
  baseUrl: string,
  now: Date,
  principals?: PrincipalCache,
): Promise<TokenResponse> {
  const client = await requireClient(prisma, input.clientId, now, input.documents);
  if (!input.code) throw new OAuthError('invalid_request', 'code is required.');
  const row =
    input.code.length <= 128
      ? await prisma.oAuthAuthorizationCode.findUnique({ where: { codeHash: hashSecret(input.code) } })
      : null;
  if (!row) throw new OAuthError('invalid_grant', 'Unknown authorization code.');
  const revokeIssued = async () => {
    const spent = await prisma.oAuthAuthorizationCode.findUnique({ where: { id: row.id }, select: { grantId: true } });
    if (spent?.grantId) await revokeGrantById(prisma, spent.grantId, 'code_reuse', now, principals);
  };
  if (row.usedAt) {
    await revokeIssued();
    throw new OAuthError('invalid_grant', REUSED);
  }
  const problem = (() => {
    // Checked on the found code, so a code presented without its verifier is burned like one with a wrong one.
    if (!input.codeVerifier) return new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
    if (row.expiresAt <= now) return new OAuthError('invalid_grant', 'The authorization code has expired.');
    if (row.clientId !== client.id)
      return new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
    if (input.redirectUri !== row.redirectUri)
      return new OAuthError('invalid_grant', 'redirect_uri must be the one of the authorization request.');
    if (
      !CODE_VERIFIER.test(input.codeVerifier!) ||
      createHash('sha256').update(input.codeVerifier!).digest('base64url') !== row.codeChallenge
    ) {
      return new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
    }
    try {
      const resource = parseResource(input.resource, baseUrl);
      if (resource && row.resource && resource !== row.resource)
        return new OAuthError('invalid_target', `The authorization was for ${row.resource}.`);
    } catch (err) {
      return err as OAuthError;
    }
    return null;
  })();
  if (problem) {
    const { count } = await prisma.oAuthAuthorizationCode.updateMany({
      where: { id: row.id, usedAt: null },
      data: { usedAt: now },
    });
    if (count !== 1) await revokeIssued();
    throw problem;
  }
  const resource = input.resource ?? row.resource;
  const lostRace = new OAuthError('invalid_grant', REUSED);
  try {
    return await prisma.$transaction(async (tx) => {
      const grant = await tx.oAuthGrant.create({
        data: {
          id: newId(PREFIX.grant, now.getTime()),
          accountId: row.accountId,
          clientId: client.id,
          scopes: row.scopes,
          resource,
          redirectUri: row.redirectUri,
          createdAt: now,
        },
      });
      // Spent and linked to its grant in one step, so a reuse always finds what to revoke.
      const { count } = await tx.oAuthAuthorizationCode.updateMany({
        where: { id: row.id, usedAt: null },
        data: { usedAt: now, grantId: grant.id },
      });
      if (count !== 1) throw lostRace;
      return issueTokens(tx, grant.id, row.scopes, now);
    });
  } catch (err) {
    // Two exchanges raced: the winner's grant is revoked as for any reuse (this one rolled back).
    if (err === lostRace) await revokeIssued();
    throw err;
  }
}
