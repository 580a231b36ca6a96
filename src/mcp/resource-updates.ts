import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { App } from '../app-services.ts';
import { EVENT_TYPES, LIVE_CHANGE_TYPES } from '../events/catalog.ts';
import { chosenKinds, CREDENTIAL_RECHECK_MS, credentialRefusal, credentialRow } from '../modules/events/live.ts';
import type { Principal } from '../modules/auth/service.ts';
import type { Tool } from './catalog.ts';
import { updatedResources } from './resources.ts';

/**
 * Resource updates for a 2026-07-28 `subscriptions/listen` (modern.ts): the 2.x SDK's listen
 * stream reads change events from a bus, and this one is fed by the account's event stream — the
 * same relayed events graphql-ws and webhooks get — and by its live changes (the state moves no
 * event reports: a server that finished provisioning or rebooting), for one request's credential
 * only: those of its account, of kinds its scopes may see, become `notifications/resources/updated`
 * for the resources they may have changed that it may read (resources.ts `updatedResources`). The SDK
 * sends a client only the URIs it asked for. While the stream is open the credential is checked
 * again every few seconds; revoked, or short of a scope it needs, the stream ends (`end`).
 */
export function resourceUpdates(
  app: App,
  principal: Principal,
  catalog: readonly Tool[],
  end: () => void,
): ServerEventBus {
  const kinds = chosenKinds(EVENT_TYPES, principal);
  const changeKinds = chosenKinds(LIVE_CHANGE_TYPES, principal);
  return {
    // Nothing publishes through this bus but the account's events and live changes.
    publish() {},
    subscribe(listener) {
      const updated = (data: Record<string, unknown>, logged: boolean) => {
        for (const uri of updatedResources(catalog, principal.scopes, data, logged))
          listener({ kind: 'resource_updated', uri });
      };
      const unsubscribeEvents = app.events.subscribe(({ envelope }) => {
        if (envelope.account === principal.accountId && kinds.has(envelope.type)) updated(envelope.data, true);
      });
      const unsubscribeChanges = app.liveChanges.subscribe((change) => {
        if (change.account === principal.accountId && changeKinds.has(change.type)) updated(change.data, false);
      });
      const refusal = credentialRefusal(credentialRow(app, principal), kinds, EVENT_TYPES);
      const recheck = setInterval(() => {
        void refusal('keep').then((err) => err && end());
      }, CREDENTIAL_RECHECK_MS);
      recheck.unref();
      return () => {
        clearInterval(recheck);
        unsubscribeEvents();
        unsubscribeChanges();
      };
    },
  };
}
