import { asModelRow } from './model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from './tenant.ts';

/** What a keyset-paged list asks of its rows (core/paging.ts): `take` of them, newest first, below the cursor's id. */
export interface KeysetQuery {
  take: number;
  where: { id?: { lt: string } };
}

/**
 * A paged list of one model the account owns, as one hand-written statement on the database's
 * driver: exactly the rows Prisma's `findMany({ take, where: { id: { lt } }, orderBy: { id:
 * 'desc' } })` returns on the tenant client, with `condition` (SQL on the row, aliased `r`)
 * standing for the list's own filter. The flat lists (tickets, pools, hosting accounts) read
 * this way because Prisma's client, not the database, was most of their cost (bench/README.md: Read
 * path); test/spine/account-pages.test.ts holds each equal to its Prisma query.
 */
export function accountPage<T>(model: string, condition?: string): (db: TenantDb, query: KeysetQuery) => Promise<T[]> {
  const statement = tenantStatement(`
    SELECT row_to_json(r) AS row
    FROM "${model}" r
    WHERE r."accountId" = $1::uuid${condition ? ` AND (${condition})` : ''} AND ($3::text IS NULL OR r.id < $3::text)
    ORDER BY r.id DESC
    LIMIT $2::int`);
  return async (db, query) =>
    (await tenantRows<{ row: Record<string, unknown> }>(db, statement, query.take, query.where.id?.lt ?? null)).map(
      (r) => asModelRow<T>(model, r.row),
    );
}
