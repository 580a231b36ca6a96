import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import type { Invoice, InvoiceItem } from '../../generated/prisma/client.ts';

// A page of invoices with their line items and the account's invoice count (GET
// /v1/billing/invoices) as one hand-written statement, as the server reads do
// (servers/server-reads.ts): two Prisma statements before. The rows are what Prisma's findMany
// with the items included returns; test/billing/invoice-read.test.ts holds them equal.

/** Newest first (`createdAt`, then `number`), `$3` rows from `$2`; items by position; items have no account column, so they are reached through the account's invoices. */
const INVOICE_PAGE = tenantStatement(`
  SELECT
    COALESCE((
      SELECT json_agg(row_to_json(v) ORDER BY v."createdAt" DESC, v.number DESC)
      FROM (
        SELECT i.*, COALESCE((SELECT json_agg(t ORDER BY t.position ASC) FROM "InvoiceItem" t WHERE t."invoiceId" = i.id), '[]') AS items
        FROM "Invoice" i
        WHERE i."accountId" = $1::uuid
        ORDER BY i."createdAt" DESC, i.number DESC
        OFFSET $2::int LIMIT $3::int
      ) v
    ), '[]') AS invoices,
    (SELECT count(*)::int FROM "Invoice" c WHERE c."accountId" = $1::uuid) AS total`);

export type InvoiceWithItems = Invoice & { items: InvoiceItem[] };

/** Invoices `offset` to `offset + limit` of the account, newest first, with their items, and how many it has. */
export async function readInvoicePage(
  db: TenantDb,
  offset: number,
  limit: number,
): Promise<{ rows: InvoiceWithItems[]; total: number }> {
  const [row] = await tenantRows<{ invoices: Record<string, unknown>[]; total: number }>(
    db,
    INVOICE_PAGE,
    offset,
    limit,
  );
  return { rows: row.invoices.map((i) => asModelRow<InvoiceWithItems>('Invoice', i)), total: row.total };
}
