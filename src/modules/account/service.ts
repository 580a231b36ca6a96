import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { hashPassword } from '../auth/password.ts';
import { openWallet } from '../billing/service.ts';

/** The caller's own account (the tenant client scopes `Account` to it). */
export async function getAccount(db: TenantDb, query: object = {}) {
  const account = await db.account.findFirst({ ...query });
  if (!account) throw notFound('Account');
  return account;
}

export interface NewAccount {
  email?: unknown;
  name?: unknown;
  country?: unknown;
  password?: unknown;
  walletBalanceUsdCents?: unknown;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;
export const MAX_WALLET_USD_CENTS = 100_000_000; // $1,000,000: larger amounts are a typo, not a deposit

/** Operator API: a new account with its wallet. */
export async function createAccount(prisma: PrismaClient, input: NewAccount, now: Date) {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  if (!EMAIL.test(email) || email.length > 254) throw badRequest('email must be a valid e-mail address.', 'email');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length < 1 || name.length > 100) throw badRequest('name must be 1 to 100 characters.', 'name');
  if (typeof input.country !== 'string' || !/^[A-Za-z]{2}$/.test(input.country)) throw badRequest('country must be an ISO 3166-1 alpha-2 code.', 'country');
  const country = input.country.toUpperCase();
  if (input.password !== undefined && (typeof input.password !== 'string' || input.password.length < 10 || input.password.length > 200)) {
    throw badRequest('password must be 10 to 200 characters.', 'password');
  }
  const balance = input.walletBalanceUsdCents ?? 0;
  if (!Number.isInteger(balance) || (balance as number) < 0 || (balance as number) > MAX_WALLET_USD_CENTS) {
    throw badRequest(`walletBalanceUsdCents must be an integer from 0 to ${MAX_WALLET_USD_CENTS}.`, 'walletBalanceUsdCents');
  }
  const passwordHash = typeof input.password === 'string' ? await hashPassword(input.password) : null;
  if (await prisma.account.findUnique({ where: { email }, select: { id: true } })) throw conflict(`An account with email ${email} already exists.`);
  return prisma.$transaction(async (tx) => {
    const account = await tx.account.create({ data: { email, name, country, passwordHash, createdAt: now } });
    await openWallet(tx, account.id, balance as number, now);
    return account;
  });
}

/** The operator's view of an account (no secrets). */
export function accountView(a: { id: string; email: string; name: string; country: string; emailVerified: boolean; createdAt: Date }) {
  return { id: a.id, email: a.email, name: a.name, country: a.country, email_verified: a.emailVerified, created_at: a.createdAt.toISOString() };
}
