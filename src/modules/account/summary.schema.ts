import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { operationsOf } from '../../schema/operation.ts';
import {
  accountSummary,
  RENEWAL_WINDOW_DAYS,
  SUMMARY_ITEMS_MAX,
  SUMMARY_SECTIONS,
  type AccountSummary,
  type SummaryRenewal,
  type SummarySuspended,
} from './summary.ts';
import { accountArea } from './manifest.ts';

const op = operationsOf(accountArea);

// The account summary (docs/REFERENCE.md: Account summary): one read of where the account stands.
// Its sections are null without their read scope; `hidden` says which scope would show each.

const SummaryWallet = builder.objectRef<NonNullable<AccountSummary['wallet']>>('AccountSummaryWallet').implement({
  description: 'The prepaid wallet, in brief (GET /billing/wallet has the rest).',
  restCase: 'snake',
  fields: (t) => ({
    balanceUsdCents: t.exposeInt('balanceUsdCents', {
      description: 'The balance in US cents; never negative.',
    }),
    autoRechargeEnabled: t.exposeBoolean('autoRechargeEnabled', {
      description: 'True when auto-recharge tops the wallet up below its threshold.',
    }),
  }),
});

const SummaryInvoices = builder.objectRef<NonNullable<AccountSummary['invoices']>>('AccountSummaryInvoices').implement({
  description: 'The open invoices: how many and how much, and how much of it is past due.',
  restCase: 'snake',
  fields: (t) => ({
    openCount: t.exposeInt('openCount', { description: 'Invoices open (not paid, not void).' }),
    openTotalUsdCents: t.exposeInt('openTotalUsdCents', {
      description: 'What the open invoices total, in US cents.',
    }),
    overdueCount: t.exposeInt('overdueCount', {
      description: 'Open invoices whose due date has passed.',
    }),
    overdueTotalUsdCents: t.exposeInt('overdueTotalUsdCents', {
      description: 'What the overdue invoices total, in US cents.',
    }),
    oldestDueAt: t.expose('oldestDueAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The earliest due date of an open invoice; null when none is open.',
    }),
  }),
});

const SummaryRenewalRef = builder.objectRef<SummaryRenewal>('AccountSummaryRenewal').implement({
  description: 'One thing that renews in the window, and what its renewal will bill.',
  restCase: 'snake',
  fields: (t) => ({
    type: t.exposeString('type', { ...values(['server', 'pool', 'domain']), description: 'server, pool or domain.' }),
    id: t.exposeID('id', {
      description: 'Its id (srv_…, pool_…, dom_…).',
      ...example('srv_01jq8k2m4p6rab3c5d7e9f1g2h'),
    }),
    name: t.exposeString('name', {
      description: "A server's or pool's label, a domain's name.",
      ...example('web-1'),
    }),
    renewsAt: t.expose('renewsAt', {
      type: 'DateTime',
      description:
        'When it renews: the end of the paid-up period (a domain: its expiry). In the past while that renewal is unpaid.',
    }),
    amountUsdCents: t.exposeInt('amountUsdCents', {
      nullable: true,
      description:
        "What the renewal bills at today's prices, in US cents: a server's plan and add-ons, a pool's monthly price, a domain's yearly price; null when unknown.",
    }),
    period: t.exposeString('period', {
      ...values(['month', 'year']),
      description: 'What the amount buys: month (servers, pools) or year (domains).',
    }),
  }),
});

const SummaryRenewals = builder.objectRef<AccountSummary['renewals']>('AccountSummaryRenewals').implement({
  description: `What renews from now until ${RENEWAL_WINDOW_DAYS} days ahead, each kind soonest first (at most ${SUMMARY_ITEMS_MAX} of each). A kind is null without its read scope, [] when nothing renews.`,
  fields: (t) => ({
    through: t.expose('through', {
      type: 'DateTime',
      description: `The window's end: ${RENEWAL_WINDOW_DAYS} days after asOf.`,
    }),
    servers: t.field({
      type: [SummaryRenewalRef],
      nullable: true,
      description: 'Standalone servers (pool servers renew with their pool); null without servers:read.',
      resolve: (r) => r.servers,
    }),
    pools: t.field({
      type: [SummaryRenewalRef],
      nullable: true,
      description: 'Capacity pools; null without servers:read.',
      resolve: (r) => r.pools,
    }),
    domains: t.field({
      type: [SummaryRenewalRef],
      nullable: true,
      description: 'Registered domains set to renew automatically; null without domains:read.',
      resolve: (r) => r.domains,
    }),
  }),
});

const SummarySuspendedRef = builder.objectRef<SummarySuspended>('AccountSummarySuspended').implement({
  description: 'One suspended thing and why.',
  fields: (t) => ({
    type: t.exposeString('type', { ...values(['server', 'pool']), description: 'server or pool.' }),
    id: t.exposeID('id', { description: 'Its id (srv_…, pool_…).', ...example('srv_01jq8k2m4p6rab3c5d7e9f1g2h') }),
    name: t.exposeString('name', { description: 'Its label.', ...example('web-1') }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        "Why it was suspended (a server's suspension reason); null for a pool, which is suspended only for an unpaid renewal (its servers carry the reason).",
      ...example('non-payment: renewal invoice INV-2026-000042 ($12.00) unpaid 3 days after its due date'),
    }),
  }),
});

const SummarySuspensions = builder.objectRef<AccountSummary['suspended']>('AccountSummarySuspensions').implement({
  description: `What is suspended now, each kind oldest first (at most ${SUMMARY_ITEMS_MAX} of each). A kind is null without its read scope, [] when none is suspended.`,
  fields: (t) => ({
    servers: t.field({
      type: [SummarySuspendedRef],
      nullable: true,
      description: 'Suspended servers; null without servers:read.',
      resolve: (s) => s.servers,
    }),
    pools: t.field({
      type: [SummarySuspendedRef],
      nullable: true,
      description: 'Suspended capacity pools; null without servers:read.',
      resolve: (s) => s.pools,
    }),
  }),
});

const SummaryUnits = builder
  .objectRef<NonNullable<AccountSummary['quotas']['pools']>[number]['quota']>('AccountSummaryPoolUnits')
  .implement({
    description: 'Pool resources: vCPUs, MB of RAM, GB of disk, IPv4 addresses.',
    fields: (t) => ({
      vcpu: t.exposeInt('vcpu', { description: 'vCPUs.' }),
      ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
      diskGb: t.exposeInt('diskGb', { description: 'Disk in GB.' }),
      ips: t.exposeInt('ips', { description: 'IPv4 addresses.' }),
    }),
  });

const SummaryPoolQuota = builder
  .objectRef<NonNullable<AccountSummary['quotas']['pools']>[number]>('AccountSummaryPoolQuota')
  .implement({
    description: "One pool's quota use: what its servers hold against what the pool sells.",
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The pool id.', ...example('pool_01jq8k2m4p6rab3c5d7e9f1g2h') }),
      name: t.exposeString('name', { description: "The pool's label.", ...example('batch') }),
      status: t.exposeString('status', { ...values(['active', 'suspended']), description: 'active or suspended.' }),
      servers: t.exposeInt('servers', { description: 'Servers in the pool.' }),
      used: t.field({
        type: SummaryUnits,
        description: 'What its servers hold (a powered-off or suspended server still holds its allocation).',
        resolve: (p) => p.used,
      }),
      quota: t.field({ type: SummaryUnits, description: 'What the pool sells, resolved.', resolve: (p) => p.quota }),
    }),
  });

const SummaryQuotas = builder.objectRef<AccountSummary['quotas']>('AccountSummaryQuotas').implement({
  description: `Quota use, oldest first (at most ${SUMMARY_ITEMS_MAX}). A kind is null without its read scope, [] when there is none.`,
  fields: (t) => ({
    pools: t.field({
      type: [SummaryPoolQuota],
      nullable: true,
      description: 'Capacity pools (GET /pools/:id has each one whole); null without servers:read.',
      resolve: (q) => q.pools,
    }),
  }),
});

const SECTIONS = Object.keys(SUMMARY_SECTIONS);
const SummaryHidden = builder.objectRef<AccountSummary['hidden'][number]>('AccountSummaryHidden').implement({
  description: 'A section the credential cannot read (it is null), and the scope that would show it.',
  fields: (t) => ({
    section: t.exposeString('section', {
      ...values(SECTIONS),
      description: 'The null section, as a path: wallet, invoices, renewals.servers, suspended.pools …',
    }),
    scope: t.exposeString('scope', {
      ...values([...new Set(Object.values(SUMMARY_SECTIONS))]),
      description: 'The read scope that would show it.',
    }),
  }),
});

const Summary = builder.objectRef<AccountSummary>('AccountSummary').implement({
  description:
    'Where the account stands: wallet, open and overdue invoices, renewals in the next 30 days, what is suspended, quota use.',
  restCase: 'snake',
  fields: (t) => ({
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: "The service's clock when it was computed: overdue and the renewal window count from it.",
    }),
    wallet: t.field({
      type: SummaryWallet,
      nullable: true,
      description: 'The wallet; null without billing:read.',
      resolve: (s) => s.wallet,
    }),
    invoices: t.field({
      type: SummaryInvoices,
      nullable: true,
      description: 'The open and overdue invoices; null without billing:read.',
      resolve: (s) => s.invoices,
    }),
    renewals: t.field({ type: SummaryRenewals, description: 'What renews soon, by kind.', resolve: (s) => s.renewals }),
    suspended: t.field({
      type: SummarySuspensions,
      description: 'What is suspended, by kind.',
      resolve: (s) => s.suspended,
    }),
    quotas: t.field({ type: SummaryQuotas, description: 'Quota use, by kind.', resolve: (s) => s.quotas }),
    hidden: t.field({
      type: [SummaryHidden],
      description:
        'Every section that is null because the credential lacks its scope, with that scope; [] when all show.',
      resolve: (s) => s.hidden,
    }),
  }),
});

builder.queryField('accountSummary', (t) =>
  t.field({
    ...op({
      summary: 'Get the account summary',
      scope: 'account:read',
      rest: 'GET /account/summary',
      description: `Where the account stands now, in one read: wallet balance, open and overdue invoices (counts, totals, oldest due date), what renews in the next ${RENEWAL_WINDOW_DAYS} days (servers, pools, domains, with date and amount), what is suspended (with the reason) and each capacity pool's quota use (vCPU, RAM, disk, addresses: used of quota). Each section needs its own read scope too (billing:read, servers:read, domains:read): without it the section is null and \`hidden\` names the scope that would show it.`,
    }),
    type: Summary,
    resolve: (_root, _args, ctx) => accountSummary(ctx.db, ctx.principal?.scopes ?? new Set(), ctx.app.clock.now()),
  }),
);
