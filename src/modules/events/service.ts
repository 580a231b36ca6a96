import type { TenantDb } from '../../db/tenant.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { toEnvelope } from '../../events/envelope.ts';

const KINDS = Object.keys(EVENT_TYPES);

/**
 * The graph's read of events by id, as envelopes (the body a subscription or a webhook gets).
 * Only kinds of the catalogue, whose read scopes decide who sees each (graph.ts).
 */
export async function eventsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.event.findMany({ where: { id: { in: [...ids] }, type: { in: KINDS } } })).map(toEnvelope);
}
