import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantClient } from '../../src/db/tenant.ts';
import { readInvoicePage } from '../../src/modules/billing/invoice-read.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { comparable } from '../helpers/rows.ts';

// GET /v1/billing/invoices reads a page of invoices with their items and the count in one
// statement (src/modules/billing/invoice-read.ts); here it must equal, deep and strict, what
// Prisma's findMany with the items included and its count return for the same data, on
// whichever database the suite runs on, for every page.

let app: TestApp;
let c: Customer;
let other: Customer;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer();
  other = await app.customer();
  for (const customer of [c, other]) {
    for (let i = 0; i < 7; i++) {
      const items = Array.from({ length: (i % 3) + 1 }, (_, n) => ({
        description: `Line ${n} of ${i}`,
        amountUsdCents: 100 * (n + 1),
      }));
      expect((await app.admin('POST', `/admin/accounts/${customer.accountId}/invoices`, { items })).status).toBe(201);
    }
  }
  const first = (await app.call('GET', '/v1/billing/invoices?limit=1', { key: c.key })).body.data[0];
  expect((await app.admin('POST', `/admin/invoices/${first.id}/pay`, { gateway: 'card' })).status).toBe(200);
}, 120_000);
afterAll(() => app?.stop());

describe('the invoice page in one statement', () => {
  it('equals Prisma findMany with the items and count, page by page', async () => {
    const prisma = app.running.app.prisma;
    const db = tenantClient(prisma, c.accountId);
    for (const [offset, limit] of [
      [0, 3],
      [3, 3],
      [6, 3],
      [9, 3],
      [0, 50],
    ]) {
      const viaPrisma = {
        rows: await db.invoice.findMany({
          include: { items: { orderBy: { position: 'asc' } } },
          orderBy: [{ createdAt: 'desc' }, { number: 'desc' }],
          skip: offset,
          take: limit,
        }),
        total: await db.invoice.count(),
      };
      expect(comparable(await readInvoicePage(db, offset, limit))).toStrictEqual(comparable(viaPrisma));
    }
    expect((await readInvoicePage(db, 0, 50)).rows.map((r) => r.items.length).sort()).toEqual([1, 1, 1, 2, 2, 3, 3]);
  });

  it("REST answers the page from it, only the account's invoices", async () => {
    const res = await app.call('GET', '/v1/billing/invoices?limit=5&page=2', { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 2, limit: 5, total: 7, hasMore: false });
    expect(res.body.data).toHaveLength(2);
    const all = (await app.call('GET', '/v1/billing/invoices?limit=50', { key: c.key })).body.data.map(
      (i: { id: string }) => i.id,
    );
    const theirs = (await app.call('GET', '/v1/billing/invoices?limit=50', { key: other.key })).body.data.map(
      (i: { id: string }) => i.id,
    );
    expect(all.filter((id: string) => theirs.includes(id))).toEqual([]);
  });
});
