import { builder } from '../../schema/builder.ts';
import { example } from '../../schema/examples.ts';
import { operationsOf } from '../../schema/operation.ts';
import { ALL_SCOPES, type Scope } from '../../scopes.ts';
import { getAccount } from './service.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { pagedListQuery } from '../../schema/operation-fields.ts';
import { listConnection } from '../../schema/pagination.ts';
import { Event } from '../events/schema.ts';
import { EVENT_HISTORY_RULES, listEventHistory } from '../events/service.ts';
// The account's other GraphQL fields, one file per part.
import './settings.schema.ts';
import './ssh-keys.schema.ts';
import './summary.schema.ts';
import { accountArea } from './manifest.ts';

const op = operationsOf(accountArea);

// The account is the root of the graph (docs/REFERENCE.md: The graph): any credential reaches it, and each
// field needs the scope of what it shows — the profile account:read, each edge its area's scope.
// GET /account selects the profile, so it still answers 403 without account:read.
const PROFILE = { authScopes: { 'account:read': true } as Record<Scope, boolean> };
const ANY_SCOPE = Object.fromEntries(ALL_SCOPES.map((s) => [s, true])) as Record<Scope, boolean>;

builder.prismaObject('Account', {
  description: 'The account the credential belongs to.',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The account id (a UUID).' }),
    email: t.exposeString('email', { ...PROFILE, description: "The account holder's e-mail address." }),
    name: t.exposeString('name', { ...PROFILE, description: "The account holder's name.", ...example('Ada Lovelace') }),
    country: t.exposeString('country', { ...PROFILE, description: 'Country, ISO 3166-1 alpha-2.' }),
    invoiceEmail: t.exposeString('invoiceEmail', {
      ...PROFILE,
      nullable: true,
      description: 'Where invoice notices go; null for the account e-mail.',
    }),
    emailVerified: t.exposeBoolean('emailVerified', {
      ...PROFILE,
      description: 'True once the e-mail address is confirmed.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      ...PROFILE,
      description: 'When the account was opened.',
    }),
  }),
});

builder.queryField('account', (t) =>
  t.prismaField({
    ...op({
      summary: 'Get the account',
      scope: 'account:read',
      rest: 'GET /account',
      toolVerb: 'get',
      description:
        'The profile of the account the credential belongs to: name, e-mail, country and when it was created.',
    }),
    authScopes: ANY_SCOPE,
    type: 'Account',
    resolve: (query, _root, _args, ctx) => getAccount(ctx.db, query),
  }),
);

// The account's activity (API 1.16): what the live `events` subscription and webhooks carry, read
// back newest first. Each event is shown only with its kind's read scope, as they are.
pagedListQuery({
  name: 'eventHistory',
  type: listConnection(Event),
  list: (ctx, args) => listEventHistory(ctx.db, ctx.principal?.scopes ?? new Set(), args),
  operation: op({
    summary: 'List account events',
    scope: 'account:read',
    rest: 'GET /events',
    tool: 'account_events_list',
    description:
      "The account's event history, newest first, in the envelope webhooks and the live subscription use: only kinds the credential can read (each kind's read scope; asking for one it cannot read is a 403 naming that scope). Filter by one kind (`type`) and by the resource an event names (`resource`: a server, invoice, ticket … id).",
  }),
  args: (t) => ({
    type: t.arg.string({
      required: false,
      description: 'Only events of this kind (server.power.changed …).',
      ...inputSchema(EVENT_HISTORY_RULES.type),
    }),
    resource: t.arg.string({
      required: false,
      description: 'Only events naming this resource id (srv_…, inv_…, tkt_…).',
      ...inputSchema(EVENT_HISTORY_RULES.resource),
    }),
  }),
});
