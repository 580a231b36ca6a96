import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { App } from '../../app-services.ts';
import { ApiError, badRequest, forbidden, notFound } from '../../errors.ts';
import { listApiKeys, mintApiKey, revokeApiKey } from '../../modules/auth/service.ts';
import {
  endSession,
  LOGIN_CSRF_COOKIE,
  parseCookies,
  requirePasswordSession,
  safeEqual,
  SESSION_COOKIE,
  type Session,
} from '../../modules/dashboard/sessions.ts';
import { decideDevice, findPendingDevice, listGrants, revokeGrant } from '../../modules/oauth/service.ts';
import { parseJsonBody, readBody } from '../request/body.ts';
import { deviceCodeForm, UNKNOWN_CODE } from '../oauth/device-page.ts';
import { clientAddress } from '../request/client-address.ts';
import { consumeLimit, cookie, loginCsrfToken, safeNext } from './forms.ts';
import { dashboardIndex, messagePage, securityHeaders, sendHtml } from './html.ts';
import { handleSignInForm, signInForm, signInWithPassword } from './sign-in.ts';
import { openSsoLink, switchBySsoLink } from './sso-landing.ts';
import { requestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/respond.ts';
import { DASHBOARD_DIST } from '../served-files.ts';
import { noRoute, Router } from '../request/router.ts';
import { sameOrigin, sessionOf } from './session-auth.ts';
import { confirmPassword, requireSudo } from './sudo.ts';

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

interface Route {
  method: string;
  /** Under /dashboard/api, with `:params` (src/http/request/router.ts). */
  path: string;
  /** Needs a signed-in session with its CSRF token (all but session and sign-in). */
  session: boolean;
  /**
   * `password`: an account-wide read, for a password sign-in only (not a session from an SSO link);
   * `sudo`: an account-wide act, which also needs the password typed within the sudo window (src/http/dashboard/sudo.ts).
   */
  account?: 'password' | 'sudo';
  handle(ctx: RouteContext): Promise<[number, unknown]>;
}

interface RouteContext {
  app: App;
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  body: Record<string, unknown>;
  accountId: string;
  secret: string;
  /** The signed-in session (null on the routes without one). */
  session: Session | null;
}

async function accountSummary(app: App, accountId: string) {
  const a = await app.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
  return { id: a.id, email: a.email, name: a.name };
}

async function userCodeAttempt(ctx: RouteContext): Promise<string> {
  await consumeLimit(ctx.app, ctx.res, 'userCodeAddress', clientAddress(ctx.app.config, ctx.req));
  await consumeLimit(ctx.app, ctx.res, 'userCodeAccount', ctx.accountId);
  const code = ctx.body.userCode;
  if (typeof code !== 'string' || code.length > 32) throw badRequest('userCode is required.', 'userCode');
  return code;
}

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/session',
    session: false,
    async handle() {
      throw new Error('handled inline');
    },
  },
  {
    method: 'POST',
    path: '/sign-in',
    session: false,
    async handle({ app, req, res, body }) {
      const { accountId, session } = await signInWithPassword(app, req, res, body.email, body.password);
      return [
        200,
        {
          signedIn: true,
          account: await accountSummary(app, accountId),
          csrfToken: session.csrfToken,
          expiresAt: session.expiresAt.toISOString(),
        },
      ];
    },
  },
  {
    method: 'POST',
    path: '/sudo',
    session: true,
    async handle({ app, req, res, body, session }) {
      const until = await confirmPassword(app, req, res, session!, body.password);
      return [200, { sudo: true, until: until.toISOString() }];
    },
  },
  {
    method: 'POST',
    path: '/sign-out',
    session: true,
    async handle({ app, res, secret }) {
      await endSession(app.prisma, secret, app.principals);
      res.setHeader('Set-Cookie', cookie(app, SESSION_COOKIE, '', 0));
      return [200, { signedIn: false }];
    },
  },
  {
    method: 'GET',
    path: '/keys',
    session: true,
    account: 'password',
    async handle({ app, accountId }) {
      return [200, { data: await listApiKeys(app.prisma, accountId) }];
    },
  },
  {
    method: 'POST',
    path: '/keys',
    session: true,
    account: 'sudo',
    async handle({ app, accountId, body }) {
      const name = body.name === undefined || body.name === '' ? 'Dashboard key' : body.name;
      if (typeof name !== 'string' || name.length > 100) throw badRequest('name must be 1 to 100 characters.', 'name');
      const expiresAt = futureTimeOrNull(body.expiresAt, app.clock.now());
      return [201, await mintApiKey(app.prisma, accountId, { name, scopes: body.scopes, expiresAt })];
    },
  },
  {
    method: 'DELETE',
    path: '/keys/:id',
    session: true,
    account: 'sudo',
    async handle({ app, accountId, params }) {
      if (!(await revokeApiKey(app.prisma, accountId, params.id, app.clock.now(), app.principals)))
        throw notFound('API key');
      return [200, { id: params.id, revoked: true }];
    },
  },
  {
    method: 'GET',
    path: '/apps',
    session: true,
    account: 'password',
    async handle({ app, accountId }) {
      return [200, { data: await listGrants(app.prisma, accountId) }];
    },
  },
  {
    method: 'DELETE',
    path: '/apps/:id',
    session: true,
    account: 'sudo',
    async handle({ app, accountId, params }) {
      if (!(await revokeGrant(app.prisma, accountId, params.id, app.clock.now(), app.principals)))
        throw notFound('Connected app');
      return [200, { id: params.id, revoked: true }];
    },
  },
  {
    method: 'POST',
    path: '/device/lookup',
    session: true,
    async handle(ctx) {
      const found = await findPendingDevice(ctx.app.prisma, await userCodeAttempt(ctx), ctx.app.clock.now());
      if (!found) throw notFoundMessage(UNKNOWN_CODE);
      return [
        200,
        {
          userCode: found.userCode,
          client: found.client,
          scopes: found.scopes,
          expiresAt: found.expiresAt.toISOString(),
        },
      ];
    },
  },
  {
    method: 'POST',
    path: '/device/:decision',
    session: true,
    async handle(ctx) {
      if (ctx.params.decision !== 'approve' && ctx.params.decision !== 'deny')
        throw new ApiError(404, `No route for POST /dashboard/api/device/${ctx.params.decision}.`);
      if (ctx.params.decision === 'approve') requireSudo(ctx.app, ctx.session!);
      const code = await userCodeAttempt(ctx);
      const approve = ctx.params.decision === 'approve';
      const result = await decideDevice(
        ctx.app.prisma,
        ctx.accountId,
        code,
        approve ? { approve: true, scopes: ctx.body.scopes } : { approve: false },
        ctx.app.clock.now(),
      );
      if (!result.ok && result.reason === 'invalid_scope')
        throw badRequest('scopes must be a non-empty subset of the requested scopes.', 'scopes');
      if (!result.ok) throw notFoundMessage(UNKNOWN_CODE);
      return [200, approve ? { approved: true, scopes: result.scopes } : { denied: true }];
    },
  },
];
const API_ROUTER = new Router(ROUTES, '/dashboard/api');

function notFoundMessage(message: string): ApiError {
  return new ApiError(404, message);
}

/**
 * The dashboard: the Preact app (static files built by Vite, served with a strict CSP), its
 * small JSON API under /dashboard/api (session cookie + CSRF header), and the server SSO
 * landing /sso/:token. Spec data travels over /graphql with the session (src/http/dashboard/session-auth.ts).
 */
export function createDashboardHandler(app: App) {
  /** The dashboard app, with what a browser without script shows instead in its <noscript>. */
  async function servePage(req: IncomingMessage, res: ServerResponse, status = 200): Promise<void> {
    const index = dashboardIndex();
    if (!index)
      return sendHtml(
        res,
        503,
        messagePage(
          'Dashboard not built',
          'The dashboard has not been built. Run npm run build:dashboard (npm ci runs it).',
        ),
      );
    const html = index
      .toString('utf8')
      .replace('<div id="app"></div>', `<div id="app"></div><noscript>${await noScriptContent(req, res)}</noscript>`);
    res.writeHead(status, {
      'Content-Type': TYPES['.html'],
      'Content-Length': Buffer.byteLength(html),
      'Cache-Control': 'no-cache',
    });
    res.end(html);
  }

  async function noScriptContent(req: IncomingMessage, res: ServerResponse): Promise<string> {
    const url = new URL(req.url ?? '/', 'http://x');
    const found = await sessionOf(app, req);
    if (!found || (url.pathname === '/sign-in' && !found.session.passwordAt))
      return signInForm({
        csrf: loginCsrfToken(app, req, res),
        next: url.pathname === '/sign-in' ? safeNext(url.searchParams.get('next')) : `${url.pathname}${url.search}`,
      });
    if (url.pathname === '/oauth/device')
      return deviceCodeForm({
        csrf: found.session.csrfToken,
        code: (url.searchParams.get('user_code') ?? '').slice(0, 32),
      });
    return '<main class="narrow"><section class="card"><h1>This dashboard needs JavaScript</h1><p>Without it you can sign in, <a href="/oauth/device">connect a device</a> and approve applications that ask for access.</p></section></main>';
  }

  async function serveAsset(res: ServerResponse, urlPath: string): Promise<boolean> {
    let rel: string;
    try {
      // Browsers ask for /favicon.ico whatever the page links; they all take the SVG icon.
      rel = urlPath === '/favicon.ico' ? '/favicon.svg' : decodeURIComponent(urlPath);
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

  async function api(req: IncomingMessage, res: ServerResponse, urlPath: string, method: string): Promise<void> {
    const match = API_ROUTER.match(method, urlPath);
    if (match.kind !== 'found') throw noRoute(match, method, urlPath);
    const { route, params } = match;
    requestScope.getStore()!.operation = `dashboard ${route.method} ${route.path}`;
    const given = req.headers['x-csrf-token'];
    const cookies = parseCookies(req.headers.cookie);
    const found = await sessionOf(app, req);

    if (urlPath === '/dashboard/api/session') {
      res.setHeader('Cache-Control', 'no-store');
      if (found) {
        const { session } = found;
        const passwordSignIn = session.passwordAt !== null;
        return sendJson(res, 200, {
          signedIn: true,
          account: await accountSummary(app, session.accountId),
          csrfToken: session.csrfToken,
          expiresAt: session.expiresAt.toISOString(),
          passwordSignIn,
        });
      }
      // Not signed in: the sign-in form's CSRF token, double-submitted through a Strict cookie.
      const loginToken = loginCsrfToken(app, req, res);
      return sendJson(res, 200, { signedIn: false, csrfToken: loginToken });
    }

    // Every other call changes or reads account state: same origin, and the CSRF token.
    if (method !== 'GET' && !sameOrigin(app, req)) throw forbidden('Cross-origin request refused.');
    // Sign-in takes the form's double-submit token, or the token of a session already open (one
    // from an SSO link signs in with the password to gain the account-wide acts it lacks).
    const expected = route.session
      ? [found?.session.csrfToken]
      : [cookies[LOGIN_CSRF_COOKIE], found?.session.csrfToken];
    if (route.session && !found) throw new ApiError(401, 'Sign in to the dashboard first.');
    if (typeof given !== 'string' || !expected.some((token) => token && safeEqual(given, token)))
      throw forbidden('Missing or invalid CSRF token (X-CSRF-Token).');
    if (route.account === 'password') requirePasswordSession(found!.session);
    if (route.account === 'sudo') requireSudo(app, found!.session);
    const raw = method === 'GET' || method === 'DELETE' ? Buffer.alloc(0) : await readBody(req, 64 * 1024);
    const body = parseJsonBody(req, raw) ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw badRequest('The request body must be a JSON object.');
    const [status, result] = await route.handle({
      app,
      req,
      res,
      params,
      body: body as Record<string, unknown>,
      accountId: found?.session.accountId ?? '',
      secret: found?.secret ?? '',
      session: found?.session ?? null,
    });
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, status, result);
  }

  return {
    /** GET /oauth/device: the approval page of the app (its code form without script). */
    async devicePage(req: IncomingMessage, res: ServerResponse): Promise<void> {
      for (const [k, v] of Object.entries(securityHeaders(app))) res.setHeader(k, v);
      await servePage(req, res);
    },

    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const urlPath = (req.url ?? '/').split('?')[0];
      const method = req.method ?? 'GET';
      for (const [k, v] of Object.entries(securityHeaders(app))) res.setHeader(k, v);
      if (urlPath === '/dashboard/api' || urlPath.startsWith('/dashboard/api/'))
        return await api(req, res, urlPath, method);
      const sso = /^\/sso\/([^/]+)$/.exec(urlPath);
      if (sso && (method === 'GET' || method === 'POST')) {
        requestScope.getStore()!.operation = 'dashboard sso';
        return await (method === 'GET' ? openSsoLink : switchBySsoLink)(app, req, res, sso[1]);
      }
      if (urlPath === '/sign-in' && method === 'POST') {
        requestScope.getStore()!.operation = 'dashboard sign-in form';
        return await handleSignInForm(app, req, res);
      }
      if (urlPath === '/sign-in' && method === 'GET' && (await sessionOf(app, req))?.session.passwordAt) {
        // Already signed in with a password: straight on to where the sign-in was for (a
        // session from a sign-in link gets the form, to sign in with the password).
        res.writeHead(303, {
          Location: safeNext(new URL(req.url ?? '/', 'http://x').searchParams.get('next')),
          'Cache-Control': 'no-store',
          'Content-Length': 0,
        });
        return void res.end();
      }
      if (method === 'GET' || method === 'HEAD') {
        requestScope.getStore()!.operation = 'dashboard';
        if (urlPath !== '/' && (await serveAsset(res, urlPath))) return;
        // Client-side routes get the app; other clients (API callers) keep the JSON 404.
        const wantsHtml = (req.headers.accept ?? '').includes('text/html');
        if (!urlPath.startsWith('/assets/') && (urlPath === '/' || wantsHtml)) return await servePage(req, res);
      }
      throw new ApiError(404, `No route for ${method} ${urlPath}.`);
    },
  };
}

/** A key's expiry: absent, null or "" for none; otherwise an ISO 8601 time after `now`. */
function futureTimeOrNull(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const at = new Date(String(value));
  if (typeof value !== 'string' || Number.isNaN(at.getTime()))
    throw badRequest('expiresAt must be an ISO 8601 timestamp.', 'expiresAt');
  if (at <= now) throw badRequest('expiresAt must be in the future.', 'expiresAt');
  return at;
}
