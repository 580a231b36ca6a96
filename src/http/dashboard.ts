import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { App } from '../app-services.ts';
import { ApiError, apiErrorOf, badRequest, forbidden, notFound } from '../errors.ts';
import { listApiKeys, mintApiKey, revokeApiKey } from '../modules/auth/service.ts';
import {
  checkPassword,
  createSession,
  endSession,
  LOGIN_CSRF_COOKIE,
  parseCookies,
  safeEqual,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
} from '../modules/dashboard/sessions.ts';
import { decideDevice, findPendingDevice, listGrants, revokeGrant } from '../modules/oauth/service.ts';
import { consumeSsoToken } from '../modules/servers/service.ts';
import { parseJsonBody, readBody } from './body.ts';
import { rateLimitHeaders } from './rate-limit.ts';
import { requestScope } from './request-scope.ts';
import { sendError, sendJson } from './respond.ts';
import { sameOrigin, sessionOf } from './session-auth.ts';

/** Where `vite build` writes the dashboard (git-ignored; built by npm ci's postinstall). */
export const DASHBOARD_DIST = path.resolve(import.meta.dirname, '../../dist/dashboard');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Security headers of every dashboard response (pages, assets, JSON). */
export function securityHeaders(app: App): Record<string, string> {
  const base = new URL(app.config.publicBaseUrl);
  const https = base.protocol === 'https:';
  const ws = `${https ? 'wss' : 'ws'}://${base.host}`;
  const headers: Record<string, string> = {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self' ${ws}`,
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    // same-origin, not no-referrer: with no-referrer some browsers send `Origin: null` on same-origin posts.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  };
  if (https) headers['Strict-Transport-Security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

function cookie(app: App, name: string, value: string, maxAgeSeconds: number, sameSite: 'Lax' | 'Strict' = 'Lax'): string {
  const secure = app.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}${secure}`;
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Needs a signed-in session with its CSRF token (all but session and sign-in). */
  session: boolean;
  handle(ctx: RouteContext): Promise<[number, unknown]>;
}

interface RouteContext {
  app: App;
  req: IncomingMessage;
  res: ServerResponse;
  params: string[];
  body: Record<string, unknown>;
  accountId: string;
  secret: string;
}

const SIGN_IN_FAILED = 'Wrong e-mail or password.';

async function accountSummary(app: App, accountId: string) {
  const a = await app.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
  return { id: a.id, email: a.email, name: a.name };
}

function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

async function limit(app: App, res: ServerResponse, bucket: 'signInEmail' | 'signInAddress' | 'userCodeAccount' | 'userCodeAddress', key: string): Promise<void> {
  const r = await app.limits.consume(bucket, key);
  if (!r.allowed) {
    for (const [k, v] of Object.entries(rateLimitHeaders(r))) res.setHeader(k, v);
    throw new ApiError(429, `Too many attempts. Retry after ${r.retryAfter} s.`);
  }
}

async function userCodeAttempt(ctx: RouteContext): Promise<string> {
  await limit(ctx.app, ctx.res, 'userCodeAddress', clientAddress(ctx.req));
  await limit(ctx.app, ctx.res, 'userCodeAccount', ctx.accountId);
  const code = ctx.body.userCode;
  if (typeof code !== 'string' || code.length > 32) throw badRequest('userCode is required.', 'userCode');
  return code;
}

const UNKNOWN_CODE = 'This code is not valid: it may be mistyped, expired or already used.';

const ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: /^\/dashboard\/api\/session$/,
    session: false,
    async handle() {
      throw new Error('handled inline');
    },
  },
  {
    method: 'POST',
    pattern: /^\/dashboard\/api\/sign-in$/,
    session: false,
    async handle({ app, req, res, body }) {
      const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
      const password = typeof body.password === 'string' ? body.password : '';
      if (!email || !password || password.length > 200 || email.length > 254) throw badRequest('email and password are required.');
      await limit(app, res, 'signInAddress', clientAddress(req));
      await limit(app, res, 'signInEmail', email);
      const account = await checkPassword(app.prisma, email, password);
      if (!account) throw new ApiError(401, SIGN_IN_FAILED);
      const { secret, session } = await createSession(app.prisma, account.id, app.clock.now());
      res.setHeader('Set-Cookie', [cookie(app, SESSION_COOKIE, secret, SESSION_TTL_SECONDS), cookie(app, LOGIN_CSRF_COOKIE, '', 0, 'Strict')]);
      return [200, { signedIn: true, account: await accountSummary(app, account.id), csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() }];
    },
  },
  {
    method: 'POST',
    pattern: /^\/dashboard\/api\/sign-out$/,
    session: true,
    async handle({ app, res, secret }) {
      await endSession(app.prisma, secret);
      res.setHeader('Set-Cookie', cookie(app, SESSION_COOKIE, '', 0));
      return [200, { signedIn: false }];
    },
  },
  {
    method: 'GET',
    pattern: /^\/dashboard\/api\/keys$/,
    session: true,
    async handle({ app, accountId }) {
      return [200, { data: await listApiKeys(app.prisma, accountId) }];
    },
  },
  {
    method: 'POST',
    pattern: /^\/dashboard\/api\/keys$/,
    session: true,
    async handle({ app, accountId, body }) {
      const name = body.name === undefined || body.name === '' ? 'Dashboard key' : body.name;
      if (typeof name !== 'string' || name.length > 100) throw badRequest('name must be 1 to 100 characters.', 'name');
      return [201, await mintApiKey(app.prisma, accountId, { name, scopes: body.scopes })];
    },
  },
  {
    method: 'DELETE',
    pattern: /^\/dashboard\/api\/keys\/([\w-]{1,64})$/,
    session: true,
    async handle({ app, accountId, params }) {
      if (!(await revokeApiKey(app.prisma, accountId, params[0], app.clock.now()))) throw notFound('API key');
      return [200, { id: params[0], revoked: true }];
    },
  },
  {
    method: 'GET',
    pattern: /^\/dashboard\/api\/apps$/,
    session: true,
    async handle({ app, accountId }) {
      return [200, { data: await listGrants(app.prisma, accountId) }];
    },
  },
  {
    method: 'DELETE',
    pattern: /^\/dashboard\/api\/apps\/([\w-]{1,64})$/,
    session: true,
    async handle({ app, accountId, params }) {
      if (!(await revokeGrant(app.prisma, accountId, params[0], app.clock.now()))) throw notFound('Connected app');
      return [200, { id: params[0], revoked: true }];
    },
  },
  {
    method: 'POST',
    pattern: /^\/dashboard\/api\/device\/lookup$/,
    session: true,
    async handle(ctx) {
      const found = await findPendingDevice(ctx.app.prisma, await userCodeAttempt(ctx), ctx.app.clock.now());
      if (!found) throw notFoundMessage(UNKNOWN_CODE);
      return [200, { userCode: found.userCode, client: found.client, scopes: found.scopes, expiresAt: found.expiresAt.toISOString() }];
    },
  },
  {
    method: 'POST',
    pattern: /^\/dashboard\/api\/device\/(approve|deny)$/,
    session: true,
    async handle(ctx) {
      const code = await userCodeAttempt(ctx);
      const approve = ctx.params[0] === 'approve';
      const result = await decideDevice(ctx.app.prisma, ctx.accountId, code, approve ? { approve: true, scopes: ctx.body.scopes } : { approve: false }, ctx.app.clock.now());
      if (!result.ok && result.reason === 'invalid_scope') throw badRequest('scopes must be a non-empty subset of the requested scopes.', 'scopes');
      if (!result.ok) throw notFoundMessage(UNKNOWN_CODE);
      return [200, approve ? { approved: true, scopes: result.scopes } : { denied: true }];
    },
  },
];

function notFoundMessage(message: string): ApiError {
  return new ApiError(404, message);
}

/**
 * The dashboard: the Preact app (static files built by Vite, served with a strict CSP), its
 * small JSON API under /dashboard/api (session cookie + CSRF header), and the server SSO
 * landing /sso/:token. Spec data travels over /graphql with the session (src/http/session-auth.ts).
 */
export function createDashboardHandler(app: App) {
  const index = () => {
    const file = path.join(DASHBOARD_DIST, 'index.html');
    return fs.existsSync(file) ? fs.readFileSync(file) : null;
  };

  async function servePage(_req: IncomingMessage, res: ServerResponse, status = 200): Promise<void> {
    const html = index();
    if (!html) return sendHtml(res, 503, 'Dashboard not built', 'The dashboard has not been built. Run <code>npm run build:dashboard</code> (npm ci runs it).');
    res.writeHead(status, { 'Content-Type': TYPES['.html'], 'Content-Length': html.length, 'Cache-Control': 'no-cache' });
    res.end(html);
  }

  function sendHtml(res: ServerResponse, status: number, title: string, message: string, link = '<a href="/sign-in">Sign in to the dashboard</a>') {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="viewport" content="width=device-width"></head><body><main><h1>${title}</h1><p>${message}</p><p>${link}</p></main></body></html>`;
    res.writeHead(status, { 'Content-Type': TYPES['.html'], 'Content-Length': Buffer.byteLength(html), 'Cache-Control': 'no-store' });
    res.end(html);
  }

  async function serveAsset(res: ServerResponse, urlPath: string): Promise<boolean> {
    let rel: string;
    try {
      rel = decodeURIComponent(urlPath);
    } catch {
      return false;
    }
    const file = path.resolve(DASHBOARD_DIST, `.${rel}`);
    if (!file.startsWith(DASHBOARD_DIST + path.sep) || path.basename(file) === 'index.html') return false;
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat?.isFile()) return false;
    const hashed = rel.startsWith('/assets/');
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    fs.createReadStream(file).pipe(res);
    return true;
  }

  async function ssoLanding(res: ServerResponse, token: string): Promise<void> {
    const now = app.clock.now();
    const redeemed = /^sso_[A-Za-z0-9_-]{43}$/.test(token) ? await consumeSsoToken(app.prisma, token, now) : null;
    if (!redeemed) {
      return sendHtml(res, 410, 'This sign-in link cannot be used', 'Dashboard sign-in links work once and for 5 minutes. This one has expired or was already used. Ask for a new link, or sign in with your e-mail and password.');
    }
    const { secret } = await createSession(app.prisma, redeemed.accountId, now);
    res.writeHead(303, { Location: redeemed.next, 'Set-Cookie': cookie(app, SESSION_COOKIE, secret, SESSION_TTL_SECONDS), 'Cache-Control': 'no-store', 'Content-Length': 0 });
    res.end();
  }

  async function api(req: IncomingMessage, res: ServerResponse, urlPath: string, method: string): Promise<void> {
    const candidates = ROUTES.filter((r) => r.pattern.test(urlPath));
    if (!candidates.length) throw new ApiError(404, `No route for ${method} ${urlPath}.`);
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      const allow = candidates.map((r) => r.method).join(', ');
      return sendError(res, 'rest', new ApiError(405, `${method} is not allowed on ${urlPath}; use ${allow}.`), { Allow: allow });
    }
    requestScope.getStore()!.operation = `dashboard ${route.method} ${route.pattern.source}`;
    const given = req.headers['x-csrf-token'];
    const cookies = parseCookies(req.headers.cookie);
    const found = await sessionOf(app, req);

    if (urlPath === '/dashboard/api/session') {
      res.setHeader('Cache-Control', 'no-store');
      if (found) return sendJson(res, 200, { signedIn: true, account: await accountSummary(app, found.session.accountId), csrfToken: found.session.csrfToken, expiresAt: found.session.expiresAt.toISOString() });
      // Not signed in: the sign-in form's CSRF token, double-submitted through a Strict cookie.
      let loginToken = cookies[LOGIN_CSRF_COOKIE];
      if (!loginToken || !/^[A-Za-z0-9_-]{43}$/.test(loginToken)) {
        loginToken = randomBytes(32).toString('base64url');
        res.setHeader('Set-Cookie', cookie(app, LOGIN_CSRF_COOKIE, loginToken, 3600, 'Strict'));
      }
      return sendJson(res, 200, { signedIn: false, csrfToken: loginToken });
    }

    // Every other call changes or reads account state: same origin, and the CSRF token.
    if (method !== 'GET' && !sameOrigin(app, req)) throw forbidden('Cross-origin request refused.');
    const expected = route.session ? found?.session.csrfToken : cookies[LOGIN_CSRF_COOKIE];
    if (route.session && !found) throw new ApiError(401, 'Sign in to the dashboard first.');
    if (typeof given !== 'string' || !expected || !safeEqual(given, expected)) throw forbidden('Missing or invalid CSRF token (X-CSRF-Token).');
    const raw = method === 'GET' || method === 'DELETE' ? Buffer.alloc(0) : await readBody(req, 64 * 1024);
    const body = parseJsonBody(req, raw) ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
    const params = route.pattern.exec(urlPath)!.slice(1);
    const [status, result] = await route.handle({ app, req, res, params, body: body as Record<string, unknown>, accountId: found?.session.accountId ?? '', secret: found?.secret ?? '' });
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, status, result);
  }

  return {
    /** GET /oauth/device: the approval page of the SPA. */
    async devicePage(req: IncomingMessage, res: ServerResponse): Promise<void> {
      for (const [k, v] of Object.entries(securityHeaders(app))) res.setHeader(k, v);
      await servePage(req, res);
    },

    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const urlPath = (req.url ?? '/').split('?')[0];
      const method = req.method ?? 'GET';
      for (const [k, v] of Object.entries(securityHeaders(app))) res.setHeader(k, v);
      try {
        if (urlPath === '/dashboard/api' || urlPath.startsWith('/dashboard/api/')) return await api(req, res, urlPath, method);
        const sso = /^\/sso\/([^/]+)$/.exec(urlPath);
        if (sso && method === 'GET') {
          requestScope.getStore()!.operation = 'dashboard sso';
          return await ssoLanding(res, sso[1]);
        }
        if (method === 'GET' || method === 'HEAD') {
          requestScope.getStore()!.operation = 'dashboard';
          if (urlPath !== '/' && (await serveAsset(res, urlPath))) return;
          // Client-side routes get the app; other clients (API callers) keep the JSON 404.
          const wantsHtml = (req.headers.accept ?? '').includes('text/html');
          if (!urlPath.startsWith('/assets/') && (urlPath === '/' || wantsHtml)) return await servePage(req, res);
        }
        throw new ApiError(404, `No route for ${method} ${urlPath}.`);
      } catch (err) {
        const apiErr = apiErrorOf(err);
        if (!apiErr) throw err;
        sendError(res, 'rest', apiErr);
      }
    },
  };
}
