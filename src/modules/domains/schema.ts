import { builder } from '../../schema/builder.ts';
import { Node } from '../../schema/graph.ts';
import { rules } from '../../schema/input-rules.ts';
import { operation } from '../../schema/operation.ts';
import { listType, pageArgs } from '../../schema/pagination.ts';
import { getDomain, listDomains, NAMESERVERS_MAX, NAMESERVERS_MIN, NAMESERVERS_RULES, updateDomain, type DomainView } from './service.ts';

// snake_case like the spec's request fields (auto_renew, transfer_lock).
export const Domain = builder.objectRef<DomainView>('Domain').implement({
  interfaces: [Node],
  description: 'A domain registered through the service.',
  fields: (t) => ({
    id: t.exposeID('id'),
    domain: t.exposeString('domain'),
    status: t.exposeString('status', { description: 'pending_payment (its invoice is open) or active.' }),
    period_years: t.exposeInt('period_years'),
    auto_renew: t.exposeBoolean('auto_renew'),
    transfer_lock: t.exposeBoolean('transfer_lock', { description: 'Registrar lock: true refuses transfers away.' }),
    whois_privacy: t.exposeBoolean('whois_privacy', { description: 'WHOIS privacy: true publishes a privacy service instead of the holder contact.' }),
    nameservers: t.exposeStringList('nameservers'),
    registered_at: t.expose('registered_at', { type: 'DateTime', nullable: true }),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
  }),
});

const DomainList = listType('DomainList', Domain);

builder.queryField('domains', (t) =>
  t.field({
    ...operation({ scope: 'domains:read', rest: 'GET /domains', area: 'domains', tool: 'domains_list' }),
    description: 'List the registered domains of the account, newest first.',
    type: DomainList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listDomains(ctx.db, args),
  }),
);

builder.queryField('domain', (t) =>
  t.field({
    ...operation({ scope: 'domains:read', rest: 'GET /domains/:id', area: 'domains', tool: 'domain_get' }),
    description: 'Get one domain with its registrar settings.',
    type: Domain,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getDomain(ctx.db, args.id),
  }),
);

builder.mutationField('domainUpdate', (t) =>
  t.field({
    ...operation({ scope: 'domains:write', rest: 'PATCH /domains/:id', area: 'domains', tool: 'domain_update' }),
    description: 'Change auto-renew, transfer lock, nameservers or WHOIS privacy of a domain.',
    type: Domain,
    args: {
      id: t.arg.id({ required: true }),
      auto_renew: t.arg.boolean({ required: false }),
      transfer_lock: t.arg.boolean({ required: false }),
      nameservers: t.arg.stringList({ required: false, description: `${NAMESERVERS_MIN} to ${NAMESERVERS_MAX} distinct host names.`, ...rules(NAMESERVERS_RULES) }),
      whois_privacy: t.arg.boolean({ required: false, description: 'WHOIS privacy on or off.' }),
    },
    resolve: (_root, args, ctx) => updateDomain(ctx, args.id, args),
  }),
);
