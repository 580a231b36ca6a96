import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import type { Ticket, TicketMessage } from '../../generated/prisma/client.ts';

// One ticket with its thread (GET /v1/tickets/:id) as one hand-written statement on the driver,
// as the server reads do (servers/server-reads.ts): the rows are what Prisma's findFirst with
// the thread included returns; test/spine/account-pages.test.ts holds them equal.

/** `$2` the ticket; its messages oldest first. A message belongs to the account through its ticket, which the statement binds to it. */
const TICKET_WITH_THREAD = tenantStatement(`
  SELECT row_to_json(t) AS ticket,
    COALESCE((SELECT json_agg(m ORDER BY m.id ASC) FROM "TicketMessage" m WHERE m."ticketId" = t.id), '[]') AS messages
  FROM "Ticket" t
  WHERE t."accountId" = $1::uuid AND t.id = $2::text`);

export type TicketWithMessages = Ticket & { messages: TicketMessage[] };

/** The account's ticket `id` with its messages, oldest first; null when the account has no such ticket. */
export async function readTicketWithThread(db: TenantDb, id: string): Promise<TicketWithMessages | null> {
  const [row] = await tenantRows<{ ticket: Record<string, unknown>; messages: unknown[] }>(db, TICKET_WITH_THREAD, id);
  return row ? asModelRow<TicketWithMessages>('Ticket', { ...row.ticket, messages: row.messages }) : null;
}
