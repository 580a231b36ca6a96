import type { App } from '../../app-services.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { checkInput } from '../../core/input-schemas.ts';
import { ApiError, badRequest, refusal } from '../../errors.ts';
import { hashPassword, verifyPassword } from '../auth/password.ts';
import type { Principal } from '../auth/service.ts';
import { endAccountSessions } from '../dashboard/account-sessions.ts';
import { renewPassword, requirePasswordPrincipal } from '../dashboard/sessions.ts';
import { ACCOUNT_RULES, getAccount } from './service.ts';

/**
 * The holder's own settings over the API: the profile (any credential with account:write; the
 * sign-in e-mail only from the console signed in with the password, in sudo mode) and the
 * password (only from the console signed in with the password, which also types the current one).
 */

interface SettingsContext {
  app: App;
  db: TenantDb;
  principal: Principal | null;
}

/** Another account signs in with that e-mail address already. */
export const EMAIL_TAKEN = refusal(409, 'Another account uses that e-mail address', 'EMAIL_TAKEN');

export interface ProfileChange {
  name?: string | null;
  country?: string | null;
  email?: string | null;
  /** "" or null: invoices go to the account's e-mail again. */
  invoiceEmail?: string | null;
}

function given<T>(value: T | null | undefined, param: string): T | undefined {
  if (value === null) throw badRequest(`${param} cannot be null.`, param);
  return value;
}

export async function updateProfile(ctx: SettingsContext, change: ProfileChange, query: object = {}) {
  const accountId = ctx.principal!.accountId;
  const now = ctx.app.clock.now();
  const name = given(change.name, 'name')?.trim();
  const country = given(change.country, 'country')?.toUpperCase();
  const email = given(change.email, 'email')?.trim().toLowerCase();
  const invoiceEmail =
    change.invoiceEmail === undefined ? undefined : change.invoiceEmail?.trim().toLowerCase() || null;
  if (name === undefined && country === undefined && email === undefined && invoiceEmail === undefined)
    throw badRequest('Give at least one of name, country, email and invoice_email.');
  if (name !== undefined) checkInput(ACCOUNT_RULES.name, name, 'name');
  if (country !== undefined) checkInput(ACCOUNT_RULES.country, country, 'country');
  if (email !== undefined) checkInput(ACCOUNT_RULES.email, email, 'email');
  if (invoiceEmail) checkInput(ACCOUNT_RULES.email, invoiceEmail, 'invoice_email');
  const current = await getAccount(ctx.db);
  const newEmail = email !== undefined && email !== current.email ? email : undefined;
  // The e-mail signs in: a key or token that could change it could take the account.
  if (newEmail) requirePasswordPrincipal(ctx.principal, now, 'change the sign-in e-mail', { sudo: true });
  const taken = () =>
    new ApiError(409, `Another account uses ${newEmail}.`, { field: 'email', code: EMAIL_TAKEN.code });
  if (newEmail && (await ctx.app.prisma.account.findUnique({ where: { email: newEmail }, select: { id: true } })))
    throw taken();
  try {
    await ctx.db.account.update({
      where: { id: accountId },
      data: {
        ...(name !== undefined ? { name } : {}),
        ...(country !== undefined ? { country } : {}),
        ...(newEmail ? { email: newEmail, emailVerified: false } : {}),
        ...(invoiceEmail !== undefined ? { invoiceEmail } : {}),
      },
    });
  } catch (err) {
    // Two accounts taking the same address at once: the unique index decides.
    if ((err as { code?: string }).code === 'P2002') throw taken();
    throw err;
  }
  return getAccount(ctx.db, query);
}

/**
 * A new password, given the current one: every other session of the account ends in the same
 * transaction, on every instance before it answers; this one stays, in sudo mode afresh. API
 * keys and connected apps are credentials of their own and keep working (revoke them apart).
 */
export async function changePassword(
  ctx: SettingsContext,
  input: { currentPassword: string; newPassword: string },
): Promise<{ changed: true; sessionsEnded: number }> {
  const now = ctx.app.clock.now();
  const sessionId = requirePasswordPrincipal(ctx.principal, now, 'change the password');
  const accountId = ctx.principal!.accountId;
  checkInput(ACCOUNT_RULES.password, input.newPassword, 'new_password');
  const { passwordHash } = await ctx.app.prisma.account.findUniqueOrThrow({
    where: { id: accountId },
    select: { passwordHash: true },
  });
  const right = passwordHash ? await verifyPassword(input.currentPassword, passwordHash).catch(() => false) : false;
  if (!right) throw badRequest('The current password is wrong.', 'current_password');
  if (input.newPassword === input.currentPassword)
    throw badRequest('new_password must differ from the current password.', 'new_password');
  const newHash = await hashPassword(input.newPassword);
  const sessionsEnded = await endAccountSessions(ctx.app, accountId, { allBut: sessionId }, now, async (tx) => {
    await tx.account.update({ where: { id: accountId }, data: { passwordHash: newHash } });
  });
  await renewPassword(ctx.app.prisma, sessionId, now, ctx.app.principals);
  return { changed: true, sessionsEnded };
}
