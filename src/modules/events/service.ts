import { z } from 'zod';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { ID_PREFIX } from '../../db/ids.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { lacksScope } from '../../errors.ts';
import { EVENT_TYPES, type EventType } from '../../events/catalog.ts';
import { toEnvelope } from '../../events/envelope.ts';

const KINDS = Object.keys(EVENT_TYPES);

/**
 * The graph's read of events by id, as envelopes (the body a subscription or a webhook gets).
 * Only kinds of the catalogue, whose read scopes decide who sees each (graph.ts).
 */
export async function eventsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.event.findMany({ where: { id: { in: [...ids] }, type: { in: KINDS } } })).map(toEnvelope);
}

/** The fields of the catalogue's payloads that name a resource (`serverId`, `invoiceId` …): what `resource` matches. */
const RESOURCE_FIELDS = [
  ...new Set(Object.values(EVENT_TYPES).flatMap((e) => Object.keys(e.fields).filter((f) => f.endsWith('Id')))),
];

/** The history's filters, declared on the arguments (account/schema.ts). */
export const EVENT_HISTORY_RULES = {
  type: z.enum(KINDS as [string, ...string[]]),
  resource: z.string().regex(/^[a-z]+_[0-9a-z]{26}$/, 'a resource id such as srv_…'),
};

/**
 * The account's event history (API 1.16), newest first: only kinds the credential can read (each
 * kind's read scope, as for the live subscription and webhooks), optionally one kind and the
 * events naming one resource (any `…Id` field of the payload). Asking for a kind the credential
 * cannot read is a 403 naming its scope rather than an empty page that looks like "nothing happened".
 */
export async function listEventHistory(
  db: TenantDb,
  scopes: ReadonlySet<string>,
  args: PageArgs & { type?: string | null; resource?: string | null },
) {
  const readable = KINDS.filter((k) => scopes.has(EVENT_TYPES[k as EventType].scope));
  if (args.type && !readable.includes(args.type)) throw lacksScope(EVENT_TYPES[args.type as EventType].scope);
  const types = args.type ? [args.type] : readable;
  const resource = args.resource
    ? { OR: RESOURCE_FIELDS.map((field) => ({ data: { path: [field], equals: args.resource as string } })) }
    : {};
  const page = await paginate(args, ID_PREFIX.event, (q) =>
    db.event.findMany({ ...q, where: { ...q.where, type: { in: types }, ...resource } }),
  );
  return { ...page, data: page.data.map(toEnvelope) };
}
