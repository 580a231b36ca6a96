import { Repeater } from 'graphql-yoga';
import type { App } from '../../app-services.ts';
import { LIVE_CHANGE_TYPES } from '../../events/catalog.ts';
import type { LiveChange } from '../../events/live-changes.ts';
import type { Principal } from '../auth/service.ts';
import { chosenKinds, credentialRefusal, credentialRow, CREDENTIAL_RECHECK_MS, type CurrentPrincipal } from './live.ts';

/**
 * A live subscription to the account's live changes (docs/REFERENCE.md: Live changes): each
 * change of the credential's account, of a kind its scopes can read (or of the `types` asked
 * for), as this instance hears it commit. There is nothing to replay: a change is kept nowhere,
 * and what happened while a client was away is in the state it reads on return.
 *
 * The credential is checked as for `events` (src/modules/events/live.ts): before every change
 * delivered and every few seconds while idle; once it no longer covers the subscription, the
 * subscription ends with the error.
 */
export function subscribeLiveChanges(
  app: App,
  principal: Principal,
  args: { types?: string[] | null },
  current: CurrentPrincipal = credentialRow(app, principal),
): AsyncIterable<LiveChange> {
  const kinds = chosenKinds(LIVE_CHANGE_TYPES, principal, args.types, 'changes');
  const refusal = credentialRefusal(current, kinds, LIVE_CHANGE_TYPES, 'changes');
  const accountId = principal.accountId;
  return new Repeater<LiveChange>(async (push, stop) => {
    let ended = false;
    const end = (err: unknown) => {
      ended = true;
      stop(err);
    };
    const recheck = setInterval(() => {
      void refusal('keep').then((err) => err && end(err));
    }, CREDENTIAL_RECHECK_MS);
    recheck.unref();
    // Changes pass the check one after another, so they keep the order they were heard in.
    let delivering = Promise.resolve();
    const unsubscribe = app.liveChanges.subscribe((change) => {
      if (change.account !== accountId || !kinds.has(change.type)) return;
      delivering = delivering.then(async () => {
        if (ended) return;
        const err = await refusal('end');
        if (err) return end(err);
        try {
          // A consumer that stops reading would otherwise queue without bound: end it.
          push(change).catch(() => undefined);
        } catch (overflow) {
          end(overflow);
        }
      });
    });
    try {
      await stop;
    } finally {
      clearInterval(recheck);
      unsubscribe();
    }
  });
}
