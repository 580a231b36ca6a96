import { Repeater } from 'graphql-yoga';
import type { App } from '../../app-services.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../../errors.ts';
import { credentialStillValid, type Principal } from '../auth/service.ts';
import { EVENT_TYPES, type EventType } from '../../events/catalog.ts';
import { toEnvelope, type EventEnvelope } from '../../events/envelope.ts';
import { relayCursorPosition } from '../../events/relay.ts';

const REPLAY_PAGE = 500;
/** How often an open subscription re-checks its credential (revocation ends it within this). */
export const CREDENTIAL_RECHECK_MS = 5000;

/** The event kinds a credential may see: those whose read scope it holds. */
export function visibleTypes(principal: Principal): EventType[] {
  return (Object.keys(EVENT_TYPES) as EventType[]).filter((t) => principal.scopes.has(EVENT_TYPES[t].scope));
}

/**
 * A live subscription to the account's events: optionally a replay of what followed the
 * event `after` (from the outbox, in relay order), then the live stream, with no gap and
 * no duplicate at the seam. The stream listener is attached before the replay query, so an
 * event relayed meanwhile is both replayed and buffered; the buffer drops what was replayed.
 * Only events of the credential's account, and only kinds its scopes can read, are seen.
 */
export async function subscribeEvents(app: App, principal: Principal, args: { after?: string | null; types?: string[] | null }): Promise<AsyncIterable<EventEnvelope>> {
  const allowed = new Set<string>(visibleTypes(principal));
  let kinds = allowed;
  if (args.types?.length) {
    const unknown = args.types.filter((t) => !Object.hasOwn(EVENT_TYPES, t));
    if (unknown.length) throw badRequest(`types has unknown kind(s): ${unknown.join(', ')}.`, 'types');
    const denied = args.types.filter((t) => !allowed.has(t));
    if (denied.length) throw forbidden(`This credential lacks the scope "${EVENT_TYPES[denied[0] as EventType].scope}" to see ${denied[0]} events.`);
    kinds = new Set(args.types);
  }
  const accountId = principal.accountId;
  let from: bigint | undefined;
  if (args.after) {
    const row = await app.prisma.event.findFirst({ where: { id: args.after, accountId }, select: { relaySeq: true, seq: true } });
    if (!row) throw notFound('Event');
    // Not relayed yet (the client cannot have seen it live): nothing relayed after it is older.
    from = row.relaySeq ?? (await relayCursorPosition(app.prisma));
  }

  const buffered: EventEnvelope[] = [];
  let sink: ((e: EventEnvelope) => void) | undefined;
  const unsubscribe = app.events.subscribe(({ envelope }) => {
    if (envelope.account !== accountId || !kinds.has(envelope.type)) return;
    if (sink) sink(envelope);
    else buffered.push(envelope);
  });

  return new Repeater<EventEnvelope>(async (push, stop) => {
    const seen = new Set<string>();
    const recheck = setInterval(() => {
      credentialStillValid(app.prisma, principal, app.clock.now())
        .then((valid) => {
          if (!valid) stop(unauthorized('The credential of this subscription was revoked or has expired.'));
        })
        .catch(() => undefined); // the database is away: keep the stream, check again later
    }, CREDENTIAL_RECHECK_MS);
    recheck.unref();
    try {
      let position = from;
      while (position !== undefined) {
        const rows = await app.prisma.event.findMany({
          where: { accountId, relaySeq: { gt: position }, type: { in: [...kinds] } },
          orderBy: { relaySeq: 'asc' },
          take: REPLAY_PAGE,
        });
        for (const row of rows) {
          seen.add(row.id);
          await push(toEnvelope(row));
        }
        position = rows.length === REPLAY_PAGE ? rows[rows.length - 1].relaySeq! : undefined;
      }
      const live = (e: EventEnvelope) => {
        if (seen.has(e.id)) return;
        // A consumer that stops reading would otherwise queue without bound: end the
        // subscription; the client resumes with `after`.
        push(e).catch(() => undefined);
      };
      for (let e = buffered.shift(); e; e = buffered.shift()) live(e);
      sink = (e) => {
        try {
          live(e);
        } catch (err) {
          stop(err);
        }
      };
      await stop;
    } catch (err) {
      stop(err);
    } finally {
      clearInterval(recheck);
      unsubscribe();
    }
  });
}
