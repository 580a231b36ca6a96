import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { z } from 'zod';
import { checkInput, emailAddress } from '../../core/input-schemas.ts';
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

const MAX_WALLET_USD_CENTS = 100_000_000; // $1,000,000: larger amounts are a typo, not a deposit

/** The one password length: operator-made accounts, and a password change. */
export const PASSWORD_LENGTH = { min: 10, max: 200 } as const;

/** The operator API's account fields: declared once, enforced here (the operator API is not GraphQL). */
export const ACCOUNT_RULES = {
  email: emailAddress(),
  name: z.string().trim().min(1).max(100),
  country: z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code'),
  password: z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max),
  walletBalanceUsdCents: z.number().min(0).max(MAX_WALLET_USD_CENTS),
};

function field<T>(input: NewAccount, name: keyof typeof ACCOUNT_RULES, type: 'string' | 'integer', fallback?: T): T {
  const value = input[name] ?? fallback;
  if (value === undefined) throw badRequest(`${name} is required.`, name);
  if (type === 'string' ? typeof value !== 'string' : !Number.isInteger(value))
    throw badRequest(`${name} must be ${type === 'string' ? 'a string' : 'an integer'}.`, name);
  checkInput(ACCOUNT_RULES[name], value, name);
  return value as T;
}

/** Operator API: a new account with its wallet. */
export async function createAccount(prisma: PrismaClient, input: NewAccount, now: Date) {
  const email = field<string>(input, 'email', 'string').trim().toLowerCase();
  const name = field<string>(input, 'name', 'string').trim();
  const country = field<string>(input, 'country', 'string').toUpperCase();
  const password = input.password === undefined ? undefined : field<string>(input, 'password', 'string');
  const balance = field<number>(input, 'walletBalanceUsdCents', 'integer', 0);
  const passwordHash = password === undefined ? null : await hashPassword(password);
  if (await prisma.account.findUnique({ where: { email }, select: { id: true } }))
    throw conflict(`An account with email ${email} already exists.`);
  return prisma.$transaction(async (tx) => {
    const account = await tx.account.create({ data: { email, name, country, passwordHash, createdAt: now } });
    await openWallet(tx, account.id, balance, now);
    return account;
  });
}

/** The operator's view of an account (no secrets). */
export function accountView(a: {
  id: string;
  email: string;
  name: string;
  country: string;
  emailVerified: boolean;
  createdAt: Date;
}) {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    country: a.country,
    email_verified: a.emailVerified,
    created_at: a.createdAt.toISOString(),
  };
}
