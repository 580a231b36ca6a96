import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, headersOf } from '../../errors.ts';
import { ALL_SCOPES } from '../../scopes.ts';
import { exchangeAuthorizationCode } from '../../modules/oauth/authorize.ts';
import { validateClientMetadata } from '../../modules/oauth/client-metadata.ts';
import { type DocumentPolicy, registerDynamicClient } from '../../modules/oauth/clients.ts';
import { RESOURCE_PATHS, resourceUrl } from '../../modules/oauth/resources.ts';
import {
  DEVICE_CODE_GRANT_TYPE,
  exchangeDeviceCode,
  OAuthError,
  refreshTokens,
  revokeToken,
  startDeviceAuthorization,
} from '../../modules/oauth/service.ts';
import { handleAuthorize } from './authorize.ts';
import { parseJsonBody, readBody } from '../request/body.ts';
import { clientAddress } from '../request/client-address.ts';
import { consumeLimit } from '../dashboard/forms.ts';
import { createMetadataDocumentPolicy } from './metadata-fetches.ts';
import { handleDeviceForm } from './device-page.ts';
import { requestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/respond.ts';
import { noRoute, Router } from '../request/router.ts';

const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  protectedResource: '/.well-known/oauth-protected-resource',
  authorization: '/oauth/authorize',
  registration: '/oauth/register',
  deviceAuthorization: '/oauth/device_authorization',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  devicePage: '/oauth/device',
} as const;

/** Largest registration request accepted. */
const REGISTRATION_LIMIT_BYTES = 16 * 1024;

/** RFC 8414 metadata: the device flow (openid-client) and the authorization code flow (MCP hosts). */
function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}${OAUTH_PATHS.authorization}`,
    device_authorization_endpoint: `${baseUrl}${OAUTH_PATHS.deviceAuthorization}`,
    token_endpoint: `${baseUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${baseUrl}${OAUTH_PATHS.registration}`,
    revocation_endpoint: `${baseUrl}${OAUTH_PATHS.revocation}`,
    grant_types_supported: ['authorization_code', DEVICE_CODE_GRANT_TYPE, 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...ALL_SCOPES],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${baseUrl}/`,
  };
}

/** RFC 9728 metadata of the MCP endpoint. */
function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: resourceUrl(baseUrl, 'mcp'),
    authorization_servers: [baseUrl],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Cloud account API (MCP)',
    resource_documentation: `${baseUrl}/docs`,
  };
}

/** Where the MCP endpoint's protected resource metadata is (the `resource_metadata` of its 401s). */
export const protectedResourceMetadataUrl = (baseUrl: string) =>
  `${baseUrl}${OAUTH_PATHS.protectedResource}${RESOURCE_PATHS.mcp}`;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * /oauth/* and the two well-known documents: form-encoded requests (RFC 6749 §3.2, RFC 8628
 * §3.1, RFC 7009 §2.1), JSON registration (RFC 7591), JSON answers, RFC error codes. The
 * device page (GET /oauth/device) is the dashboard's, handed to `devicePage`.
 */
export function createOAuthHandler(app: App, devicePage: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  type Ctx = { req: IncomingMessage; res: ServerResponse; now: Date; base: string; documents: DocumentPolicy };
  const documentPolicy = createMetadataDocumentPolicy(app);
  const form = (endpoint: (form: URLSearchParams, ctx: Ctx) => Promise<unknown>) => (ctx: Ctx) =>
    answerForm(ctx.req, ctx.res, app.config.bodyLimitBytes, (f) => endpoint(f, ctx));
  const document =
    (body: (base: string) => unknown) =>
    async ({ res, base }: Ctx) =>
      sendJson(res, 200, body(base), PUBLIC_DOCUMENT);
  // HEAD is answered as GET (node drops the body).
  const router = new Router<{ method: string; path: string; handle(ctx: Ctx): Promise<void> }>([
    { method: 'GET', path: OAUTH_PATHS.metadata, handle: document(authorizationServerMetadata) },
    { method: 'GET', path: OAUTH_PATHS.protectedResource, handle: document(protectedResourceMetadata) },
    {
      method: 'GET',
      path: `${OAUTH_PATHS.protectedResource}${RESOURCE_PATHS.mcp}`,
      handle: document(protectedResourceMetadata),
    },
    { method: 'GET', path: OAUTH_PATHS.devicePage, handle: ({ req, res }) => devicePage(req, res) },
    { method: 'POST', path: OAUTH_PATHS.devicePage, handle: ({ req, res }) => handleDeviceForm(app, req, res) },
    {
      method: 'GET',
      path: OAUTH_PATHS.authorization,
      handle: ({ req, res, documents }) => handleAuthorize(app, req, res, documents),
    },
    {
      method: 'POST',
      path: OAUTH_PATHS.authorization,
      handle: ({ req, res, documents }) => handleAuthorize(app, req, res, documents),
    },
    { method: 'POST', path: OAUTH_PATHS.registration, handle: ({ req, res, now }) => register(app, req, res, now) },
    {
      method: 'POST',
      path: OAUTH_PATHS.deviceAuthorization,
      handle: form(async (f, { req, res, base, now, documents }) => {
        // Each call stores a device code: counted per client address, like registrations.
        await consumeLimit(app, res, 'deviceAuthorization', clientAddress(app.config, req));
        return startDeviceAuthorization(
          app.prisma,
          { clientId: one(f, 'client_id'), scope: one(f, 'scope'), documents },
          base,
          now,
        );
      }),
    },
    {
      method: 'POST',
      path: OAUTH_PATHS.token,
      handle: form((f, { base, now, documents }) => token(app, f, documents, base, now)),
    },
    {
      method: 'POST',
      path: OAUTH_PATHS.revocation,
      handle: form(async (f, { now, documents }) => {
        await revokeToken(
          app.prisma,
          { clientId: one(f, 'client_id'), documents, token: one(f, 'token') },
          now,
          app.principals,
        );
        return {};
      }),
    },
  ]);
  return async function handleOAuth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const scope = requestScope.getStore()!;
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const base = app.config.publicBaseUrl;
    const now = app.clock.now();
    const documents = documentPolicy(req, res);
    const match = router.match(method === 'HEAD' ? 'GET' : method, path);
    if (match.kind !== 'found') throw noRoute(match, method, path);
    scope.operation = `oauth ${match.route.path}`;
    await match.route.handle({ req, res, now, base, documents });
  };
}

const PUBLIC_DOCUMENT = { 'Cache-Control': 'public, max-age=300' };

/** POST /oauth/token: the authorization code, device code and refresh token grants. */
async function token(
  app: App,
  form: URLSearchParams,
  documents: DocumentPolicy,
  base: string,
  now: Date,
): Promise<unknown> {
  const grantType = one(form, 'grant_type');
  const clientId = one(form, 'client_id');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (grantType === 'authorization_code') {
    return exchangeAuthorizationCode(
      app.prisma,
      {
        clientId,
        documents,
        code: one(form, 'code'),
        redirectUri: one(form, 'redirect_uri'),
        codeVerifier: one(form, 'code_verifier'),
        resource: one(form, 'resource'),
      },
      base,
      now,
      app.principals,
    );
  }
  if (grantType === DEVICE_CODE_GRANT_TYPE)
    return exchangeDeviceCode(app.prisma, { clientId, documents, deviceCode: one(form, 'device_code') }, now);
  if (grantType === 'refresh_token') {
    return refreshTokens(
      app.prisma,
      {
        clientId,
        documents,
        refreshToken: one(form, 'refresh_token'),
        scope: one(form, 'scope'),
        resource: one(form, 'resource'),
      },
      now,
      app.principals,
    );
  }
  throw new OAuthError(
    'unsupported_grant_type',
    `grant_type ${grantType} is not supported; use authorization_code, ${DEVICE_CODE_GRANT_TYPE} or refresh_token.`,
  );
}

/** POST /oauth/register (RFC 7591): JSON in, the client's metadata out; OAuth error codes. */
async function register(app: App, req: IncomingMessage, res: ServerResponse, now: Date): Promise<void> {
  try {
    const metadata = validateClientMetadata(parseJsonBody(req, await readBody(req, REGISTRATION_LIMIT_BYTES)));
    // Registrations are what is counted: a refused request stores nothing.
    await consumeLimit(app, res, 'clientRegistration', clientAddress(app.config, req));
    return sendJson(res, 201, await registerDynamicClient(app.prisma, metadata, now), NO_STORE);
  } catch (err) {
    if (err instanceof OAuthError)
      return sendJson(res, err.status, { error: err.error, error_description: err.description }, NO_STORE);
    const api = apiErrorOf(err);
    if (!api) throw err;
    return sendJson(
      res,
      api.status,
      { error: api.status === 429 ? 'too_many_requests' : 'invalid_client_metadata', error_description: api.message },
      NO_STORE,
    );
  }
}

/** A form-encoded endpoint: its JSON answer, or the RFC 6749 §5.2 error object. */
async function answerForm(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  endpoint: (form: URLSearchParams) => Promise<unknown>,
): Promise<void> {
  try {
    const form = await readForm(req, limit);
    sendJson(res, 200, await endpoint(form), NO_STORE);
  } catch (err) {
    if (err instanceof OAuthError) {
      const headers: Record<string, string> = { ...NO_STORE };
      if (err.status === 401) headers['WWW-Authenticate'] = 'Basic realm="oauth"';
      return sendJson(res, err.status, { error: err.error, error_description: err.description }, headers);
    }
    if (err instanceof ApiError && err.status === 413)
      return sendJson(res, 413, { error: 'invalid_request', error_description: err.message }, NO_STORE);
    // consumeLimit has set Retry-After and the limit headers; the body is RFC 6749's shape, as for registrations.
    if (err instanceof ApiError && err.status === 429)
      return sendJson(res, 429, { error: 'too_many_requests', error_description: err.message }, NO_STORE);
    if (err instanceof ApiError && err.status === 503)
      return sendJson(
        res,
        503,
        { error: 'temporarily_unavailable', error_description: err.message },
        { ...NO_STORE, ...headersOf(err) },
      );
    throw err;
  }
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
    throw new OAuthError(
      'invalid_client',
      'Clients here are public (token_endpoint_auth_method none): send client_id in the body, no Authorization header.',
      401,
    );
  }
  return form;
}
