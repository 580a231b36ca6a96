import { Repeater } from 'graphql-yoga';
import type { App } from '../../app-services.ts';
import { badRequest, forbidden, notFound, unauthorized, unexpectedError } from '../../errors.ts';
import { credentialStillValid, type Principal } from '../auth/service.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import type { Scope } from '../../scopes.ts';
import { toEnvelope, type EventEnvelope } from '../../events/envelope.ts';
import { relayCursorPosition } from '../../events/relay.ts';

const REPLAY_PAGE = 500;
/** How often an idle subscription re-checks its credential (revocation ends it within this even when no event comes). */
export const CREDENTIAL_RECHECK_MS = 5000;

/** The credential as it stands now (null: revoked, expired or ended). */
export type CurrentPrincipal = () => Promise<Principal | null>;

/** A catalogue of kinds, each with the scope that reads it (EVENT_TYPES, LIVE_CHANGE_TYPES). */
export type KindScopes = Readonly<Record<string, { scope: string }>>;

/**
 * The kinds of `catalogue` a subscription sees: every kind whose read scope the credential holds,
 * or the ones `types` names (an unknown kind is a 400, one it cannot read a 403).
 */
export function chosenKinds(
  catalogue: KindScopes,
  principal: Principal,
  types?: string[] | null,
  what = 'events',
): Set<string> {
  const allowed = new Set(Object.keys(catalogue).filter((t) => principal.scopes.has(catalogue[t].scope as Scope)));
  if (!types?.length) return allowed;
  const unknown = types.filter((t) => !Object.hasOwn(catalogue, t));
  if (unknown.length) throw badRequest(`types has unknown kind(s): ${unknown.join(', ')}.`, 'types');
  const denied = types.filter((t) => !allowed.has(t));
  if (denied.length)
    throw forbidden(`This credential lacks the scope "${catalogue[denied[0]].scope}" to see ${denied[0]} ${what}.`);
  return new Set(types);
}

/**
 * Why a subscription to `kinds` must end now, or null while its credential still covers it.
 * While the database is away, an idle stream is kept (`keep`: checked again later) and an item
 * is not delivered unverified (`end`).
 */
export function credentialRefusal(
  current: CurrentPrincipal,
  kinds: Set<string>,
  catalogue: KindScopes,
  what = 'events',
) {
  return async (whenUnavailable: 'keep' | 'end'): Promise<Error | null> => {
    let now: Principal | null;
    try {
      now = await current();
    } catch (err) {
      return whenUnavailable === 'keep' ? null : unexpectedError(err);
    }
    if (!now) return unauthorized('The credential of this subscription was revoked or has expired.');
    const lost = [...kinds].find((t) => !now.scopes.has(catalogue[t].scope as Scope));
    return lost
      ? forbidden(
          `This credential no longer has the scope "${catalogue[lost].scope}" this subscription needs (${lost} ${what}).`,
        )
      : null;
  };
}

/** The credential as it stands, read from its row (the caller has no cached check). */
export const credentialRow =
  (app: App, principal: Principal): CurrentPrincipal =>
  async () =>
    (await credentialStillValid(app.prisma, principal, app.clock.now())) ? principal : null;

/**
 * A live subscription to the account's events: optionally a replay of what followed the
 * event `after` (from the outbox, in relay order), then the live stream, with no gap and
 * no duplicate at the seam. The stream listener is attached before the replay query, so an
 * event relayed meanwhile is both replayed and buffered; the buffer drops what was replayed.
 * Only events of the credential's account, and only kinds its scopes can read, are seen.
 *
 * The credential is checked again before every event delivered (`current`: graphql-ws passes a
 * re-authentication through the principal cache, which every instance clears before a change
 * is answered, so the check costs no query while nothing changed): once it is revoked, expired
 * or ended, or no longer holds the read scope of a kind subscribed to, the subscription ends
 * with an error and delivers nothing more. Without `current`, the credential's row is read.
 */
export async function subscribeEvents(
  app: App,
  principal: Principal,
  args: { after?: string | null; types?: string[] | null },
  current: CurrentPrincipal = credentialRow(app, principal),
): Promise<AsyncIterable<EventEnvelope>> {
  const kinds = chosenKinds(EVENT_TYPES, principal, args.types);
  const accountId = principal.accountId;
  let from: bigint | undefined;
  if (args.after) {
    const row = await app.prisma.event.findFirst({
      where: { id: args.after, accountId },
      select: { relaySeq: true, seq: true },
    });
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

  const refusal = credentialRefusal(current, kinds, EVENT_TYPES);

  return new Repeater<EventEnvelope>(async (push, stop) => {
    const seen = new Set<string>();
    let ended = false;
    const end = (err: unknown) => {
      ended = true;
      stop(err);
    };
    const recheck = setInterval(() => {
      void refusal('keep').then((err) => err && end(err));
    }, CREDENTIAL_RECHECK_MS);
    recheck.unref();
    try {
      let position = from;
      while (position !== undefined && !ended) {
        const rows = await app.prisma.event.findMany({
          where: { accountId, relaySeq: { gt: position }, type: { in: [...kinds] } },
          orderBy: { relaySeq: 'asc' },
          take: REPLAY_PAGE,
        });
        for (const row of rows) {
          const err = await refusal('end');
          if (err) return end(err);
          seen.add(row.id);
          await push(toEnvelope(row));
        }
        position = rows.length === REPLAY_PAGE ? rows[rows.length - 1].relaySeq! : undefined;
      }
      // Live events pass the check one after another, so they keep their order.
      let delivering = Promise.resolve();
      const live = (e: EventEnvelope) => {
        if (seen.has(e.id)) return;
        delivering = delivering.then(async () => {
          if (ended) return;
          const err = await refusal('end');
          if (err) return end(err);
          try {
            // A consumer that stops reading would otherwise queue without bound: end the
            // subscription; the client resumes with `after`.
            push(e).catch(() => undefined);
          } catch (overflow) {
            end(overflow);
          }
        });
      };
      for (let e = buffered.shift(); e; e = buffered.shift()) live(e);
      sink = live;
      await stop;
    } catch (err) {
      stop(err);
    } finally {
      clearInterval(recheck);
      unsubscribe();
    }
  });
}
