import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { createSession, endSession, SESSION_COOKIE, SESSION_TTL_SECONDS } from '../../modules/dashboard/sessions.ts';
import { consumeSsoToken, peekSsoToken } from '../../modules/servers/sso.ts';
import { clientAddress } from '../request/client-address.ts';
import { cookie, formCsrfValid, readForm } from './forms.ts';
import { escapeHtml, hidden, htmlPage, messagePage, sendHtml } from './html.ts';
import { sessionOf } from './session-auth.ts';

/**
 * The dashboard SSO landing, /sso/:token (a server's one-time sign-in link). Opening a link never
 * silently replaces the session of another account (login CSRF: a link planted by someone else
 * would make the person work in that account): GET asks "Continue as …?" and leaves the token
 * unused; the page's form posts back, from our origin with the current session's CSRF token, to
 * redeem it and switch. With no session, or one of the link's own account, GET signs in at once.
 */

const TOKEN_SHAPE = /^sso_[A-Za-z0-9_-]{43}$/;

function unusable(res: ServerResponse): void {
  const message =
    'Dashboard sign-in links work once and for 5 minutes. This one has expired or was already used. Ask for a new link, or sign in with your e-mail and password.';
  sendHtml(
    res,
    410,
    messagePage('This sign-in link cannot be used', message, '<a href="/sign-in">Sign in to the dashboard</a>'),
  );
}

async function emailOf(app: App, accountId: string): Promise<string> {
  const { email } = await app.prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { email: true } });
  return email;
}

function switchPage(token: string, csrf: string, current: string, linked: string): string {
  return htmlPage(
    'Switch account?',
    `<main class="narrow"><form class="card" method="post" action="/sso/${escapeHtml(token)}" data-testid="sso-switch">
<h1>Switch account?</h1>
<p>You are signed in as <strong data-testid="current-email">${escapeHtml(current)}</strong>. Continue as <strong data-testid="link-email">${escapeHtml(linked)}</strong>?</p>
<p class="muted">This sign-in link is for another account. Continuing signs you out of ${escapeHtml(current)}; only continue if you asked for this link yourself.</p>
${hidden('csrf', csrf)}
<div class="actions"><button type="submit">Continue as ${escapeHtml(linked)}</button><a href="/">Cancel, stay signed in as ${escapeHtml(current)}</a></div>
</form></main>`,
  );
}

/** Redeems the token into a session limited to the link maker's scopes, and goes to the link's page. */
async function redeem(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  previousSecret: string | null,
): Promise<void> {
  const now = app.clock.now();
  const redeemed = await consumeSsoToken(app.prisma, token, now);
  if (!redeemed) return unusable(res);
  if (previousSecret) await endSession(app.prisma, previousSecret, app.principals);
  // The session may do what the link's maker could, and never an account-wide act (sudo.ts).
  const { secret } = await createSession(
    app.prisma,
    redeemed.accountId,
    now,
    { scopes: redeemed.scopes },
    { userAgent: req.headers['user-agent'], address: clientAddress(app.config, req) },
  );
  res.writeHead(303, {
    Location: redeemed.next,
    'Set-Cookie': cookie(app, SESSION_COOKIE, secret, SESSION_TTL_SECONDS),
    'Cache-Control': 'no-store',
    'Content-Length': 0,
  });
  res.end();
}

/** GET /sso/:token: signs in, or asks first when another account is signed in. */
export async function openSsoLink(app: App, req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  if (!TOKEN_SHAPE.test(token)) return unusable(res);
  const found = await sessionOf(app, req);
  if (!found) return redeem(app, req, res, token, null);
  const link = await peekSsoToken(app.prisma, token, app.clock.now());
  if (!link) return unusable(res);
  if (link.accountId === found.session.accountId) return redeem(app, req, res, token, null);
  const [current, linked] = await Promise.all([emailOf(app, found.session.accountId), emailOf(app, link.accountId)]);
  sendHtml(res, 200, switchPage(token, found.session.csrfToken, current, linked));
}

/** POST /sso/:token: the "Continue as …" form; same origin and the current session's CSRF token, or nothing happens. */
export async function switchBySsoLink(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
): Promise<void> {
  const form = await readForm(req);
  const found = await sessionOf(app, req);
  if (!formCsrfValid(app, req, form, found?.session.csrfToken))
    return sendHtml(
      res,
      403,
      messagePage(
        'Request refused',
        'The form expired or did not come from this site: nothing changed. Open the sign-in link again.',
      ),
    );
  if (!TOKEN_SHAPE.test(token)) return unusable(res);
  await redeem(app, req, res, token, found!.secret);
}
