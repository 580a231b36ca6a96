import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, badRequest } from '../../errors.ts';
import { LOGIN_CSRF_COOKIE, parseCookies, safeEqual } from '../../modules/dashboard/sessions.ts';
import type { RateLimitClass } from '../../schema/operation.ts';
import { readBody } from '../request/body.ts';
import { rateLimitHeaders } from '../admission/rate-limit.ts';
import { sameOrigin } from './session-auth.ts';

/**
 * What the dashboard's JSON API and its plain HTML forms share: cookies, the per-address and
 * per-account attempt limits, and the CSRF rule for form posts (same origin, and the hidden
 * `csrf` field equal to the session's token, or before sign-in to the double-submit cookie).
 */

/** Largest form post accepted. */
const FORM_LIMIT_BYTES = 16 * 1024;

export function cookie(
  app: App,
  name: string,
  value: string,
  maxAgeSeconds: number,
  sameSite: 'Lax' | 'Strict' = 'Lax',
): string {
  const secure = app.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}${secure}`;
}

export function appendCookie(res: ServerResponse, value: string): void {
  const current = res.getHeader('Set-Cookie');
  res.setHeader('Set-Cookie', [...(Array.isArray(current) ? current : current ? [String(current)] : []), value]);
}

/** Counts one attempt against a rate-limit class; 429 (with the limit headers) when over. */
export async function consumeLimit(app: App, res: ServerResponse, bucket: RateLimitClass, key: string): Promise<void> {
  const r = await app.limits.consume(bucket, key);
  if (!r.allowed) {
    for (const [k, v] of Object.entries(rateLimitHeaders(r))) res.setHeader(k, v);
    throw new ApiError(429, `Too many attempts. Retry after ${r.retryAfter} s.`);
  }
}

/** The sign-in form's CSRF token: the Strict double-submit cookie's value, set now when absent. */
export function loginCsrfToken(app: App, req: IncomingMessage, res: ServerResponse): string {
  const given = parseCookies(req.headers.cookie)[LOGIN_CSRF_COOKIE];
  if (given && /^[A-Za-z0-9_-]{43}$/.test(given)) return given;
  const token = randomBytes(32).toString('base64url');
  appendCookie(res, cookie(app, LOGIN_CSRF_COOKIE, token, 3600, 'Strict'));
  return token;
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const raw = await readBody(req, FORM_LIMIT_BYTES);
  if (type !== 'application/x-www-form-urlencoded')
    throw badRequest('A form post must be application/x-www-form-urlencoded.');
  return new URLSearchParams(raw.toString('utf8'));
}

/** A form post is ours when it comes from our origin and carries the expected CSRF token. */
export function formCsrfValid(
  app: App,
  req: IncomingMessage,
  form: URLSearchParams,
  expected: string | undefined,
): boolean {
  const given = form.get('csrf');
  return sameOrigin(app, req) && !!given && !!expected && safeEqual(given, expected);
}

/** Where to go after signing in: a path on this site only (no `//host`, no scheme). */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/(?![/\\])/.test(next) && !/[\u0000-\u001f]/.test(next) ? next : '/';
}
