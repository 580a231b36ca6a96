import { isScope } from '../../scopes.ts';
import { OAuthError } from './errors.ts';

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/**
 * Grant types a redirecting client may register. The device grant only when it asks for it:
 * its device and consent pages then show its id and "unverified" (clients.ts isVerifiedClient).
 */
const REDIRECT_GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE] as const;
/** Redirect URIs one client may register. */
const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

// ---------------------------------------------------------------- redirect URIs

/** Why a redirect URI cannot be registered, or null when it can: https, or http on loopback (RFC 8252 §7.3). */
function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_REDIRECT_URI_LENGTH)
    return `must be a string of 1 to ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

/**
 * Exact string match against the registered list, except that a loopback http URI matches on
 * any port (RFC 8252 §7.3: a native app binds whatever port is free when it starts).
 */
export function redirectUriRegistered(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let g: URL;
  try {
    g = new URL(given);
  } catch {
    return false;
  }
  if (
    g.protocol !== 'http:' ||
    !LOOPBACK_HOSTS.has(g.hostname) ||
    g.hash ||
    given.includes('#') ||
    g.username ||
    g.password
  )
    return false;
  return registered.some((r) => {
    const u = new URL(r);
    return u.protocol === 'http:' && u.hostname === g.hostname && u.pathname === g.pathname && u.search === g.search;
  });
}

// ---------------------------------------------------------------- client metadata (RFC 7591 §2)

export interface ClientMetadata {
  name: string;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  scope?: string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validates RFC 7591 client metadata (registration body or metadata document); unknown fields are ignored (§2). */
export function validateClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_client_metadata', 'The client metadata must be a JSON object.');
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs.`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthError(
        'invalid_redirect_uri',
        `redirect_uris: ${JSON.stringify(String(uri).slice(0, 100))} ${problem}.`,
      );
  }
  const method = m.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be "none": clients here are public and use PKCE.',
    );
  const grantTypes = m.grant_types ?? ['authorization_code'];
  if (
    !Array.isArray(grantTypes) ||
    grantTypes.length === 0 ||
    grantTypes.some((g) => !(REDIRECT_GRANT_TYPES as readonly unknown[]).includes(g))
  ) {
    throw new OAuthError(
      'invalid_client_metadata',
      `grant_types must name only ${REDIRECT_GRANT_TYPES.join(' and ')}.`,
    );
  }
  if (!grantTypes.includes('authorization_code'))
    throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code.');
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code')
    throw new OAuthError('invalid_client_metadata', 'response_types must be ["code"].');
  const name = m.client_name;
  if (
    name !== undefined &&
    (typeof name !== 'string' || name.trim().length < 1 || name.trim().length > 100 || CONTROL.test(name))
  ) {
    throw new OAuthError('invalid_client_metadata', 'client_name must be 1 to 100 printable characters.');
  }
  const scope = m.scope;
  if (
    scope !== undefined &&
    (typeof scope !== 'string' ||
      scope.length > 1000 ||
      scope
        .trim()
        .split(/\s+/)
        .some((s) => s && !isScope(s)))
  ) {
    throw new OAuthError('invalid_client_metadata', 'scope must be a space-separated list of known scopes.');
  }
  return {
    name: typeof name === 'string' ? name.trim() : new URL(uris[0] as string).host,
    redirectUris: [...new Set(uris as string[])],
    grantTypes: [...new Set(grantTypes as string[])],
    responseTypes: ['code'],
    ...(typeof scope === 'string' && scope.trim() ? { scope: scope.trim() } : {}),
  };
}
