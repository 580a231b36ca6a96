import { builder } from '../../schema/builder.ts';
import { values } from '../../schema/examples.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import {
  domainsByIds,
  getDomain,
  listDomains,
  NAMESERVERS_MAX,
  NAMESERVERS_MIN,
  NAMESERVERS_RULES,
  updateDomain,
  type DomainView,
  DOMAIN_PENDING_PAYMENT,
  DOMAIN_STATES,
} from './service.ts';
import { domainsArea } from './manifest.ts';

const op = operationsOf(domainsArea);

// REST speaks the spec's snake_case here (`restCase: 'snake'` on the type and its update).
export const Domain = builder.node(builder.objectRef<DomainView>('Domain'), {
  ...loadedNode('Domain', {
    prefix: 'dom',
    scope: 'domains:read',
    id: { description: 'The domain id (dom_…).' },
    load: (ctx, ids) => domainsByIds(ctx.db, ids),
  }),
  description: 'A domain registered through the service.',
  restCase: 'snake',
  fields: (t) => ({
    domain: t.exposeString('domain', { description: 'The domain name.' }),
    status: t.exposeString('status', {
      ...values(DOMAIN_STATES, 'active'),
      description: 'pending_payment (its invoice is open) or active.',
    }),
    periodYears: t.exposeInt('periodYears', { description: 'Years it was registered for.' }),
    autoRenew: t.exposeBoolean('autoRenew', {
      description: 'True renews it automatically before it expires.',
    }),
    transferLock: t.exposeBoolean('transferLock', {
      description: 'Registrar lock: true refuses transfers away.',
    }),
    whoisPrivacy: t.exposeBoolean('whoisPrivacy', {
      description: 'WHOIS privacy: true publishes a privacy service instead of the holder contact.',
    }),
    nameservers: t.exposeStringList('nameservers', {
      description: `Its nameservers at the registry: ${NAMESERVERS_MIN} to ${NAMESERVERS_MAX} host names.`,
    }),
    registeredAt: t.expose('registeredAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was registered; null until its invoice is paid.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the registration ends; null until registered.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was ordered.',
    }),
  }),
});

const DomainConnection = listConnection(Domain);

pagedListQuery({
  name: 'domains',
  type: DomainConnection,
  list: (ctx, args) => listDomains(ctx.db, args),
  operation: op({
    summary: 'List domains',
    scope: 'domains:read',
    rest: 'GET /domains',
    toolVerb: 'list',
    description: 'The registered domains of the account, newest first.',
  }),
});

idOperation({
  root: 'query',
  name: 'domain',
  type: Domain,
  idDescription: 'The domain id.',
  run: (ctx, id) => getDomain(ctx.db, id),
  operation: op({
    summary: 'Get a domain',
    scope: 'domains:read',
    rest: 'GET /domains/:id',
    toolVerb: 'get',
    description:
      'One domain with its registrar settings: expiry, auto-renew, transfer lock, nameservers and WHOIS privacy.',
  }),
});

builder.mutationField('domainUpdate', (t) =>
  t.field({
    ...op({
      summary: 'Update a domain',
      scope: 'domains:write',
      refuses: [DOMAIN_PENDING_PAYMENT],
      rest: 'PATCH /domains/:id',
      description:
        'Change auto-renew, transfer lock, nameservers or WHOIS privacy of a domain; send at least one. 409 until the domain is registered (its invoice paid).',
      fires: ['domain.updated'],
    }),
    type: Domain,
    restCase: 'snake',
    args: {
      id: t.arg.id({ required: true, description: 'The domain id.' }),
      autoRenew: t.arg.boolean({
        required: false,
        description: 'Renew the domain automatically before it expires.',
      }),
      transferLock: t.arg.boolean({
        required: false,
        description: 'Refuse transfers of the domain to another registrar.',
      }),
      nameservers: t.arg.stringList({
        required: false,
        description: `${NAMESERVERS_MIN} to ${NAMESERVERS_MAX} distinct host names.`,
        ...inputSchema(NAMESERVERS_RULES),
      }),
      whoisPrivacy: t.arg.boolean({
        required: false,
        description: 'WHOIS privacy on or off.',
      }),
    },
    resolve: (_root, args, ctx) => updateDomain(ctx, args.id, args),
  }),
);
