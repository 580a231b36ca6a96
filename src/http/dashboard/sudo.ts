import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, badRequest } from '../../errors.ts';
import {
  checkPassword,
  linkSessionRefusal,
  renewPassword,
  sudoRefusal,
  sudoState,
  SUDO_WINDOW_SECONDS,
  type Session,
} from '../../modules/dashboard/sessions.ts';
import { passwordAttempt } from './sign-in.ts';

/**
 * Sudo mode (as GitHub's): account-wide acts — minting and revoking API keys, revoking connected
 * apps, approving a device or an OAuth consent — need the password typed in this session within
 * the last SUDO_WINDOW_SECONDS. A session opened from a credential (SSO link) never qualifies: it
 * carries that credential's rights and no more, and typing a password does not widen it.
 */

const MINUTES = SUDO_WINDOW_SECONDS / 60;

/** The session came from a credential, not a password: only a password sign-in can do this. */
const credentialRefusal = linkSessionRefusal;

/** Throws 403 unless the session may do an account-wide act now. */
export function requireSudo(app: App, session: Session): void {
  const state = sudoState(session, app.clock.now());
  if (state === 'credential') throw credentialRefusal();
  if (state === 'stale') throw sudoRefusal();
}

/**
 * The password typed again in a password session: counted against the sign-in lockout, then
 * sudo mode for SUDO_WINDOW_SECONDS more. Throws 400, 401 (wrong password), 403 (session from a
 * credential) or 429.
 */
export async function confirmPassword(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  session: Session,
  password: unknown,
): Promise<Date> {
  if (!session.passwordAt) throw credentialRefusal();
  if (typeof password !== 'string' || !password || password.length > 200)
    throw badRequest('password is required.', 'password');
  const { email } = await app.prisma.account.findUniqueOrThrow({
    where: { id: session.accountId },
    select: { email: true },
  });
  const right = await passwordAttempt(app, req, res, email.toLowerCase(), () =>
    checkPassword(app.prisma, email, password),
  );
  if (!right) throw new ApiError(401, 'Wrong password.', { field: 'password' });
  const now = app.clock.now();
  if (!(await renewPassword(app.prisma, session.id, now, app.principals)))
    throw new ApiError(401, 'Sign in to the dashboard first.');
  return new Date(now.getTime() + SUDO_WINDOW_SECONDS * 1000);
}

/**
 * The HTML forms' sudo check before an approval: null when the session may go on (the form's
 * `password` field renews a stale one), else the refusal to show with the form again.
 */
export async function formSudo(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  session: Session,
  form: URLSearchParams,
): Promise<ApiError | null> {
  const state = sudoState(session, app.clock.now());
  if (state === 'ok') return null;
  if (state === 'credential') return credentialRefusal();
  if (!form.get('password')) return sudoRefusal('Enter your password to approve');
  try {
    await confirmPassword(app, req, res, session, form.get('password'));
    return null;
  } catch (err) {
    const api = apiErrorOf(err);
    if (!api) throw err;
    return api;
  }
}

/** The forms' password field, shown when the session's password entry is stale (plain HTML, no script). */
export function sudoPasswordField(app: App, session: Session): string {
  const state = sudoState(session, app.clock.now());
  if (state === 'credential')
    return '<p class="muted">This session was opened from a sign-in link: approving needs a sign-in with your password (<a href="/sign-in">sign in</a>).</p>';
  if (state === 'ok') return '';
  return `<label>Your password <span class="muted small">(entered more than ${MINUTES} minutes ago; needed to approve)</span> <input name="password" type="password" autocomplete="current-password"></label>`;
}
