import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError } from '../errors.ts';
import { ALL_SCOPES } from '../modules/auth/scopes.ts';
import {
  DEVICE_CODE_GRANT_TYPE,
  exchangeDeviceCode,
  OAuthError,
  refreshTokens,
  revokeToken,
  startDeviceAuthorization,
} from '../modules/oauth/service.ts';
import { readBody } from './body.ts';
import { requestScope } from './request-scope.ts';
import { sendError, sendJson } from './respond.ts';

export const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  deviceAuthorization: '/oauth/device_authorization',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  devicePage: '/oauth/device',
} as const;

/** RFC 8414 metadata: what a client (openid-client's discovery) needs to run the device flow. */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    device_authorization_endpoint: `${baseUrl}${OAUTH_PATHS.deviceAuthorization}`,
    token_endpoint: `${baseUrl}${OAUTH_PATHS.token}`,
    revocation_endpoint: `${baseUrl}${OAUTH_PATHS.revocation}`,
    grant_types_supported: [DEVICE_CODE_GRANT_TYPE, 'refresh_token'],
    response_types_supported: [],
    scopes_supported: [...ALL_SCOPES],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    service_documentation: `${baseUrl}/`,
  };
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * /oauth/* and /.well-known/oauth-authorization-server: form-encoded requests (RFC 6749
 * §3.2, RFC 8628 §3.1, RFC 7009 §2.1), JSON answers, RFC error codes. The device page
 * (GET /oauth/device) is the dashboard's, handed to `devicePage`.
 */
export function createOAuthHandler(app: App, devicePage: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  return async function handleOAuth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const scope = requestScope.getStore()!;
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const base = app.config.publicBaseUrl;
    const now = app.clock.now();
    scope.operation = `oauth ${path}`;

    const only = (allowed: string) => {
      if (method === allowed || (allowed === 'GET' && method === 'HEAD')) return true;
      sendError(res, 'rest', new ApiError(405, `${method} is not allowed on ${path}; use ${allowed}.`), { Allow: allowed });
      return false;
    };

    if (path === OAUTH_PATHS.metadata) {
      if (only('GET')) sendJson(res, 200, authorizationServerMetadata(base), { 'Cache-Control': 'public, max-age=300' });
      return;
    }
    if (path === OAUTH_PATHS.devicePage || path === `${OAUTH_PATHS.devicePage}/`) {
      if (only('GET')) await devicePage(req, res);
      return;
    }
    const endpoints: Record<string, (form: URLSearchParams) => Promise<unknown>> = {
      [OAUTH_PATHS.deviceAuthorization]: (form) =>
        startDeviceAuthorization(app.prisma, { clientId: one(form, 'client_id'), scope: one(form, 'scope') }, base, now),
      [OAUTH_PATHS.token]: async (form) => {
        const grantType = one(form, 'grant_type');
        if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
        if (grantType === DEVICE_CODE_GRANT_TYPE) return exchangeDeviceCode(app.prisma, { clientId: one(form, 'client_id'), deviceCode: one(form, 'device_code') }, now);
        if (grantType === 'refresh_token') {
          return refreshTokens(app.prisma, { clientId: one(form, 'client_id'), refreshToken: one(form, 'refresh_token'), scope: one(form, 'scope') }, now);
        }
        throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use ${DEVICE_CODE_GRANT_TYPE} or refresh_token.`);
      },
      [OAUTH_PATHS.revocation]: async (form) => {
        await revokeToken(app.prisma, { clientId: one(form, 'client_id'), token: one(form, 'token') }, now);
        return {};
      },
    };
    const endpoint = endpoints[path];
    if (!endpoint) return sendError(res, 'rest', new ApiError(404, `No route for ${method} ${path}.`));
    if (!only('POST')) return;
    try {
      const form = await readForm(req, app.config.bodyLimitBytes);
      sendJson(res, 200, await endpoint(form), NO_STORE);
    } catch (err) {
      if (err instanceof OAuthError) {
        const headers: Record<string, string> = { ...NO_STORE };
        if (err.status === 401) headers['WWW-Authenticate'] = 'Basic realm="oauth"';
        return sendJson(res, err.status, { error: err.error, error_description: err.description }, headers);
      }
      if (err instanceof ApiError && err.status === 413) return sendJson(res, 413, { error: 'invalid_request', error_description: err.message }, NO_STORE);
      throw err;
    }
  };
}

/** One form parameter; a repeated parameter is invalid_request (RFC 6749 §3.1). */
function one(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} is repeated.`);
  return values[0] === '' ? undefined : values[0];
}

async function readForm(req: IncomingMessage, limit: number): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const raw = await readBody(req, limit);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  const form = new URLSearchParams(raw.toString('utf8'));
  if (req.headers.authorization) {
    // Public clients only: a client secret (HTTP Basic) is a credential we never issued.
    throw new OAuthError('invalid_client', 'Clients here are public (token_endpoint_auth_method none): send client_id in the body, no Authorization header.', 401);
  }
  return form;
}
