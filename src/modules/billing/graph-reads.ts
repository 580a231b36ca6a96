import type { TenantDb } from '../../db/tenant.ts';
import { invoiceView } from './invoices.ts';

// The graph's reads of invoices (docs/REFERENCE.md: The graph): keyset pages and lookups by id.

const WITH_ITEMS = { items: { orderBy: { position: 'asc' as const } } };

/** Invoices newest first (ids carry their creation time), one beyond the page. */
export async function invoicePage(db: TenantDb, first: number, after?: string | null) {
  const rows = await db.invoice.findMany({
    where: after ? { id: { lt: after } } : {},
    include: WITH_ITEMS,
    orderBy: { id: 'desc' },
    take: first + 1,
  });
  return rows.map(invoiceView);
}

export const countInvoices = (db: TenantDb) => db.invoice.count();

export async function invoicesByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.invoice.findMany({ where: { id: { in: [...ids] } }, include: WITH_ITEMS })).map(invoiceView);
}
