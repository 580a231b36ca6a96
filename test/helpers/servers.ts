import { expect } from 'vitest';
import type { ClientApp, Customer, Json, TestApp } from './app.ts';

/** Orders a server through the operator API and advances the clock until it runs. */
export async function runningServer(
  app: ClientApp,
  c: Customer,
  opts: { productId?: string; label?: string; osTemplate?: string } = {},
): Promise<string> {
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: opts.productId ?? 'std-2c-4g-50',
    label: opts.label ?? 'web-1',
    os: opts.osTemplate === 'windows-2022' ? 'windows' : 'linux',
    osTemplate: opts.osTemplate ?? 'ubuntu-24.04',
  });
  expect(order.status, order.text).toBe(201);
  await advance(app, 180);
  return order.body.id;
}

/** Moves the simulated clock; returns its new time. */
export async function advance(app: ClientApp, seconds: number): Promise<Date> {
  const tick = await app.admin('POST', '/admin/clock/advance', { seconds });
  expect(tick.status, tick.text).toBe(200);
  return new Date(tick.body.now);
}

/** The wallet balance straight from the database. */
export async function balance(app: TestApp, c: Customer): Promise<number> {
  const w = await app.running.app.prisma.wallet.findUniqueOrThrow({ where: { accountId: c.accountId } });
  return w.balanceUsdCents;
}

/** Wallet transactions other than the opening balance, oldest first. */
export async function debits(app: TestApp, c: Customer) {
  return app.running.app.prisma.walletTransaction.findMany({
    where: { accountId: c.accountId, kind: { not: 'opening_balance' } },
    orderBy: { id: 'asc' },
  });
}

export async function events(app: TestApp, c: Customer, type?: string) {
  const rows = await app.running.app.prisma.event.findMany({
    where: { accountId: c.accountId, ...(type ? { type } : {}) },
    orderBy: { seq: 'asc' },
  });
  return rows.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
}

/** Asserts the spec's error object with a status. */
export function expectError(res: { status: number; body: Json; text: string }, status: number, message?: RegExp) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, message: expect.any(String), error: expect.any(String) });
  if (message) expect(res.body.message).toMatch(message);
}
