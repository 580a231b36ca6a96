import { builder } from '../../schema/builder.ts';
import { values } from '../../schema/examples.ts';
import type { Scope } from '../../scopes.ts';
import { unauthorized } from '../../errors.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { Node } from '../../schema/graph.ts';
import type { EventEnvelope } from '../../events/envelope.ts';
import { subscribeEvents } from './live.ts';

export const Event = builder.objectRef<EventEnvelope>('Event').implement({
  interfaces: [Node],
  description: 'The event envelope, the same as a webhook delivery body.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'evt_...; pass it as `after` to resume.' }),
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

/** Any scope that can read some event kind lets a credential subscribe; each event is then filtered by its own. */
const READ_SCOPES = Object.fromEntries(
  [...new Set(Object.values(EVENT_TYPES).map((e) => e.scope))].map((s) => [s, true]),
) as Record<Scope, boolean>;

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
