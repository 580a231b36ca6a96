import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { eventsByIds } from './service.ts';
import { example, values } from '../../schema/examples.ts';
import type { Scope } from '../../scopes.ts';
import { unauthorized } from '../../errors.ts';
import { EVENT_TYPES, LIVE_CHANGE_TYPES } from '../../events/catalog.ts';
import type { EventEnvelope } from '../../events/envelope.ts';
import type { LiveChange as Change } from '../../events/live-changes.ts';
import { subscribeLiveChanges } from './live-changes.ts';
import { subscribeEvents } from './live.ts';

export const Event = builder.node(builder.objectRef<EventEnvelope>('Event'), {
  ...loadedNode('Event', {
    prefix: 'evt',
    // Events have no scope of their own: as in the events subscription, each is read with its
    // kind's read scope (catalog.ts), so the scope is checked per event.
    scope: (e: EventEnvelope) => EVENT_TYPES[e.type].scope,
    id: { description: 'evt_...; pass it as `after` to resume.' },
    load: (ctx, ids) => eventsByIds(ctx.db, ids),
  }),
  description: 'The event envelope, the same as a webhook delivery body.',
  fields: (t) => ({
    type: t.exposeString('type', {
      ...values(Object.keys(EVENT_TYPES), 'server.power.changed'),
      description: 'The event kind.',
    }),
    created: t.exposeString('created', { description: 'When it happened, ISO 8601 UTC.' }),
    account: t.exposeID('account', { description: 'The account id.' }),
    apiVersion: t.exposeString('apiVersion', { description: 'Interface revision of the payload.' }),
    data: t.expose('data', { type: 'JSON', description: "The spec's payload fields for the kind." }),
  }),
});

/** Any scope that can read some kind of the catalogue lets a credential subscribe; each item is then filtered by its own. */
const readScopes = (catalogue: Readonly<Record<string, { scope: string }>>) =>
  Object.fromEntries([...new Set(Object.values(catalogue).map((e) => e.scope))].map((s) => [s, true])) as Record<
    Scope,
    boolean
  >;
const READ_SCOPES = readScopes(EVENT_TYPES);

const LiveChange = builder.objectRef<Change>('LiveChange').implement({
  description:
    'A state move no account event reports (a reboot settling, a webhook delivery attempted), told to open pages as it commits. Kept nowhere: no id, no history, no webhook.',
  fields: (t) => ({
    type: t.exposeString('type', {
      ...values(Object.keys(LIVE_CHANGE_TYPES), 'server.status.changed'),
      description: 'The change kind.',
    }),
    created: t.exposeString('created', { description: 'When it happened, ISO 8601 UTC.' }),
    account: t.exposeID('account', { description: 'The account id.' }),
    data: t.expose('data', {
      type: 'JSON',
      description: "The kind's payload fields.",
      ...example({ serverId: 'srv_01jq8k2m4p6rab3c5d7e9f1g2h', status: 'running' }),
    }),
  }),
});

builder.subscriptionType({});

builder.subscriptionField('events', (t) =>
  t.field({
    description:
      'Live events of the account (graphql-ws on /graphql), only of kinds the credential can read. ' +
      'With `after` (an event id), first replays the events that followed it, then continues live.',
    type: Event,
    authScopes: READ_SCOPES,
    args: {
      after: t.arg.string({ required: false, description: 'Last event id seen: replay what followed it.' }),
      types: t.arg.stringList({ required: false, description: 'Only these kinds (each needs its read scope).' }),
    },
    subscribe: (_root, args, ctx) => {
      if (!ctx.principal) throw unauthorized();
      return subscribeEvents(ctx.app, ctx.principal, args, ctx.currentPrincipal);
    },
    resolve: (event) => event,
  }),
);

builder.subscriptionField('liveChanges', (t) =>
  t.field({
    description:
      'Live changes of the account (graphql-ws on /graphql): state moves no event reports, such as a server ' +
      'back to `running` after a reboot or a webhook delivery attempted, of kinds the credential can read. ' +
      'Nothing is replayed: on reconnecting, read the state again.',
    type: LiveChange,
    authScopes: readScopes(LIVE_CHANGE_TYPES),
    args: {
      types: t.arg.stringList({ required: false, description: 'Only these kinds (each needs its read scope).' }),
    },
    subscribe: (_root, args, ctx) => {
      if (!ctx.principal) throw unauthorized();
      return subscribeLiveChanges(ctx.app, ctx.principal, args, ctx.currentPrincipal);
    },
    resolve: (change) => change,
  }),
);
