import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, badRequest } from '../../errors.ts';
import {
  checkPassword,
  createSession,
  LOGIN_CSRF_COOKIE,
  parseCookies,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
} from '../../modules/dashboard/sessions.ts';
import { clientAddress } from '../request/client-address.ts';
import { appendCookie, consumeLimit, cookie, formCsrfValid, loginCsrfToken, readForm, safeNext } from './forms.ts';
import { escapeHtml, hidden, htmlPage, messagePage, securityHeaders, sendHtml } from './html.ts';

const SIGN_IN_FAILED = 'Wrong e-mail or password.';

/**
 * One password attempt (sign-in or sudo): `check` runs within the limits per client address,
 * and per e-mail from that address. The e-mail's lockout is keyed by the address too, so guesses
 * from elsewhere never lock the owner out of their own sign-in; the per-address limit bounds any
 * one guesser. Only failures add up: the attempt takes its points before the password is checked
 * (so parallel guesses are counted too), and a right password gives the address's point back and
 * clears that (address, e-mail)'s count. Throws 429 when either limit is spent.
 */
export async function passwordAttempt<T>(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  email: string,
  check: () => Promise<T | null>,
): Promise<T | null> {
  const address = clientAddress(app.config, req);
  const emailKey = `${address} ${email}`;
  await consumeLimit(app, res, 'signInAddress', address);
  await consumeLimit(app, res, 'signInEmail', emailKey);
  const found = await check();
  if (found) {
    await app.limits.refund('signInAddress', address);
    await app.limits.forget('signInEmail', emailKey);
  }
  return found;
}

/**
 * Signs in with e-mail and password (the JSON API and the HTML form both): attempt limits
 * (passwordAttempt), then a new session in its cookie; the login CSRF cookie is cleared.
 * Throws 400, 401 or 429.
 */
export async function signInWithPassword(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  emailInput: unknown,
  passwordInput: unknown,
) {
  const email = typeof emailInput === 'string' ? emailInput.trim().toLowerCase() : '';
  const password = typeof passwordInput === 'string' ? passwordInput : '';
  if (!email || !password || password.length > 200 || email.length > 254)
    throw badRequest('email and password are required.');
  const account = await passwordAttempt(app, req, res, email, () => checkPassword(app.prisma, email, password));
  if (!account) throw new ApiError(401, SIGN_IN_FAILED);
  const created = await createSession(
    app.prisma,
    account.id,
    app.clock.now(),
    { password: true },
    { userAgent: req.headers['user-agent'], address: clientAddress(app.config, req) },
  );
  appendCookie(res, cookie(app, SESSION_COOKIE, created.secret, SESSION_TTL_SECONDS));
  appendCookie(res, cookie(app, LOGIN_CSRF_COOKIE, '', 0, 'Strict'));
  return { accountId: account.id, ...created };
}

/** The sign-in form (markup only): posts to /sign-in, then goes on to `next`. */
export function signInForm(opts: { csrf: string; next: string; error?: string; email?: string }): string {
  return `<div class="signin"><form class="card" method="post" action="/sign-in">
<h1>Sign in</h1><p class="muted">Your cloud account dashboard.</p>
${hidden('csrf', opts.csrf)}${hidden('next', opts.next)}
<label>E-mail <input name="email" type="email" autocomplete="username" required value="${escapeHtml(opts.email ?? '')}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<button type="submit">Sign in</button></form></div>`;
}

/** The sign-in form as a page of its own, for `next` (a path on this site). */
function sendSignInPage(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  next: string,
  status = 200,
  error?: string,
  email?: string,
): void {
  const csrf = loginCsrfToken(app, req, res);
  sendHtml(
    res,
    status,
    htmlPage('Sign in', signInForm({ csrf, next: safeNext(next), error, email })),
    securityHeaders(app),
  );
}

/** POST /sign-in: the form without script. Success goes on to `next` (303); a refusal shows the form again. */
export async function handleSignInForm(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = securityHeaders(app);
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (err) {
    const api = apiErrorOf(err);
    if (!api) throw err;
    return sendHtml(
      res,
      api.status,
      messagePage('Sign-in refused', api.message, '<a href="/sign-in">Sign in</a>'),
      headers,
    );
  }
  const next = safeNext(form.get('next'));
  if (!formCsrfValid(app, req, form, parseCookies(req.headers.cookie)[LOGIN_CSRF_COOKIE])) {
    return sendHtml(
      res,
      403,
      messagePage(
        'Sign-in refused',
        'The form expired or did not come from this site. Load the sign-in page again.',
        `<a href="/sign-in?next=${encodeURIComponent(next)}">Sign in</a>`,
      ),
      headers,
    );
  }
  try {
    await signInWithPassword(app, req, res, form.get('email'), form.get('password'));
  } catch (err) {
    const api = apiErrorOf(err);
    if (!api) throw err;
    return sendSignInPage(app, req, res, next, api.status, api.message, form.get('email') ?? undefined);
  }
  res.writeHead(303, { ...headers, Location: next, 'Cache-Control': 'no-store', 'Content-Length': 0 });
  res.end();
}
