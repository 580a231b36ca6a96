import { builder } from '../../schema/builder.ts';
import { example } from '../../schema/examples.ts';
import { Node } from '../../schema/graph.ts';
import { rules } from '../../schema/input-rules.ts';
import { operation } from '../../schema/operation.ts';
import { LABEL_RULES } from '../servers/server-row.ts';
import { listType, pageArgs, wholeList } from '../../schema/pagination.ts';
import type { PoolUnits } from '../catalogue/service.ts';
import {
  applyPoolIps,
  createPool,
  createServerInPool,
  deletePool,
  getPool,
  listPoolIps,
  listPools,
  MAX_IP_CHANGES,
  MAX_POOL_SERVER_IPS,
  poolCatalogue,
  quotePool,
  quotePoolResize,
  resizePool,
} from './service.ts';

const PoolUnitsType = builder.objectRef<PoolUnits>('PoolUnits').implement({
  description: 'A value per pool unit: vcpu (1 vCPU), ram2gb (2 GB RAM), disk100 (100 GB disk), ip16 (16 IPv4 addresses).',
  fields: (t) => ({ vcpu: t.exposeInt('vcpu'), ram2gb: t.exposeInt('ram2gb'), disk100: t.exposeInt('disk100'), ip16: t.exposeInt('ip16') }),
});

const Range = builder.objectRef<{ min: number; max: number }>('PoolUnitRange').implement({
  description: 'The range a slider may move between (step 1).',
  fields: (t) => ({ min: t.exposeInt('min'), max: t.exposeInt('max') }),
});

type Bounds = Record<keyof PoolUnits, { min: number; max: number }>;
const PoolBounds = builder.objectRef<Bounds>('PoolBounds').implement({
  description: 'The range each unit may move between, from the live catalogue.',
  fields: (t) => ({
    vcpu: t.field({ type: Range, resolve: (b) => b.vcpu }),
    ram2gb: t.field({ type: Range, resolve: (b) => b.ram2gb }),
    disk100: t.field({ type: Range, resolve: (b) => b.disk100 }),
    ip16: t.field({ type: Range, resolve: (b) => b.ip16 }),
  }),
});

const PoolUnitSizes = builder.objectRef<Record<keyof PoolUnits, string>>('PoolUnitSizes').implement({
  description: 'What one unit of each slider is.',
  fields: (t) => ({ vcpu: t.exposeString('vcpu'), ram2gb: t.exposeString('ram2gb'), disk100: t.exposeString('disk100'), ip16: t.exposeString('ip16') }),
});

const PoolProduct = builder.objectRef<Awaited<ReturnType<typeof poolCatalogue>>[number]>('PoolProduct').implement({
  description: 'A pool product: per-unit monthly prices in cents and slider bounds.',
  fields: (t) => ({
    productId: t.exposeString('productId'),
    name: t.exposeString('name'),
    rates_cents: t.field({ type: PoolUnitsType, resolve: (p) => p.rates_cents, description: 'Monthly price of one unit, in US cents.' }),
    bounds: t.field({ type: PoolBounds, resolve: (p) => p.bounds }),
    unitSizes: t.field({ type: PoolUnitSizes, resolve: (p) => p.unitSizes }),
  }),
});

const PoolProductList = listType('PoolProductList', PoolProduct);

builder.queryField('poolCatalogue', (t) =>
  t.field({
    ...operation({ summary: 'List pool products', scope: 'servers:read', rest: 'GET /pools/catalogue', area: 'pools', tool: 'pools_catalogue',
      description: 'The pool products with per-unit prices in cents and the bounds of each unit (slider ranges).' }),
    type: PoolProductList,
    resolve: async (_root, _args, ctx) => wholeList(await poolCatalogue(ctx.db)),
  }),
);

type Quote = Awaited<ReturnType<typeof quotePool>>;
const QuoteLine = builder.objectRef<Quote['breakdown'][number]>('PoolQuoteLine').implement({
  fields: (t) => ({
    unit: t.exposeString('unit'),
    description: t.exposeString('description'),
    quantity: t.exposeInt('quantity'),
    unitPriceUsdCents: t.exposeInt('unitPriceUsdCents'),
    amountUsdCents: t.exposeInt('amountUsdCents'),
  }),
});
const QuoteResolved = builder.objectRef<Quote['resolved']>('PoolQuoteResolved').implement({
  description: 'The selection in plain figures.',
  fields: (t) => ({ vcpu: t.exposeInt('vcpu'), ramGb: t.exposeInt('ramGb'), diskGb: t.exposeInt('diskGb'), ipv4Addresses: t.exposeInt('ipv4Addresses') }),
});
const PoolQuote = builder.objectRef<Quote>('PoolQuote').implement({
  description: 'The monthly price of a pool selection, priced by the server.',
  fields: (t) => ({
    productId: t.exposeString('productId'),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents'),
    breakdown: t.field({ type: [QuoteLine], resolve: (q) => q.breakdown }),
    resolved: t.field({ type: QuoteResolved, resolve: (q) => q.resolved }),
  }),
});

const unitArgs = (t: any) => ({
  vcpu: t.arg.int({ required: true, description: 'vCPUs, within the product\'s bounds.', ...example(8) }),
  ram2gb: t.arg.int({ required: true, description: 'Blocks of 2 GB RAM, within the product\'s bounds.', ...example(8) }),
  disk100: t.arg.int({ required: true, description: 'Blocks of 100 GB disk, within the product\'s bounds.', ...example(2) }),
  ip16: t.arg.int({ required: true, description: 'Blocks of 16 IPv4 addresses, within the product\'s bounds.', ...example(1) }),
});

builder.queryField('poolQuote', (t) =>
  t.field({
    ...operation({ summary: 'Quote a pool', scope: 'servers:read', rest: 'POST /pools/quote', area: 'pools', tool: 'pool_quote',
      description: 'Price a pool selection: the monthly price and its per-unit breakdown. Nothing is charged or stored. 400 when a unit is outside the product\'s bounds.' }),
    type: PoolQuote,
    args: { productId: t.arg.string({ required: true, description: 'The pool product, from GET /pools/catalogue.', ...example('pool-fra1') }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => quotePool(ctx.db, args),
  }),
);

type Summary = Awaited<ReturnType<typeof listPools>>['data'][number];
type Detail = Awaited<ReturnType<typeof getPool>>;

const PoolQuota = builder.objectRef<Summary['quota']>('PoolQuota').implement({
  description: 'The pool units resolved: vCPUs, MB of RAM, GB of disk, IPv4 addresses.',
  fields: (t) => ({ vcpu: t.exposeInt('vcpu'), ramMb: t.exposeInt('ramMb'), diskGb: t.exposeInt('diskGb'), ips: t.exposeInt('ips') }),
});
const PoolUsage = builder.objectRef<Detail['usage']>('PoolUsage').implement({
  description: 'Resources provisioned inside the pool (a powered-off server still holds its allocation).',
  fields: (t) => ({ vcpu: t.exposeInt('vcpu'), ramMb: t.exposeInt('ramMb'), diskGb: t.exposeInt('diskGb'), ips: t.exposeInt('ips'), servers: t.exposeInt('servers') }),
});
const PoolServer = builder.objectRef<Detail['servers'][number]>('PoolServer').implement({
  description: 'A server inside the pool.',
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    status: t.exposeString('status'),
    productId: t.exposeString('productId'),
    vcpu: t.exposeInt('vcpu'),
    ramMb: t.exposeInt('ramMb'),
    diskGb: t.exposeInt('diskGb'),
    os: t.exposeString('os'),
    osTemplate: t.exposeString('osTemplate'),
    ips: t.exposeStringList('ips'),
  }),
});

const summaryFields = (t: any) => ({
  id: t.exposeID('id'),
  productId: t.exposeString('productId'),
  label: t.exposeString('label'),
  status: t.exposeString('status', { description: 'active or deleted.' }),
  vcpu: t.exposeInt('vcpu'),
  ram2gb: t.exposeInt('ram2gb'),
  disk100: t.exposeInt('disk100'),
  ip16: t.exposeInt('ip16'),
  quota: t.field({ type: PoolQuota, resolve: (p: Summary) => p.quota }),
  rates_cents: t.field({ type: PoolUnitsType, resolve: (p: Summary) => p.rates_cents, description: 'Per-unit monthly prices the pool was sold at; resizes are charged at these.' }),
  monthlyUsdCents: t.exposeInt('monthlyUsdCents'),
  renewsAt: t.expose('renewsAt', { type: 'DateTime' }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
});

export const Pool = builder.objectRef<Summary>('Pool').implement({
  description: 'A capacity pool with its quotas, status, monthly price and renewal date.',
  interfaces: [Node],
  fields: (t) => summaryFields(t),
});

const PoolDetail = builder.objectRef<Detail>('PoolDetail').implement({
  description: 'A capacity pool with usage, bounds, sold rates and its servers.',
  fields: (t) => ({
    ...summaryFields(t),
    usage: t.field({ type: PoolUsage, resolve: (p) => p.usage }),
    bounds: t.field({ type: PoolBounds, nullable: true, resolve: (p) => p.bounds }),
    servers: t.field({ type: [PoolServer], resolve: (p) => p.servers }),
  }),
});

const PoolList = listType('PoolList', Pool);

builder.queryField('pools', (t) =>
  t.field({
    ...operation({ summary: 'List pools', scope: 'servers:read', rest: 'GET /pools', area: 'pools', tool: 'pools_list',
      description: 'The capacity pools with quotas, status, monthly price and renewal date, newest first. A page of the list envelope; follow nextCursor while hasMore.' }),
    type: PoolList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listPools(ctx.db, args),
  }),
);

builder.queryField('pool', (t) =>
  t.field({
    ...operation({ summary: 'Get a pool', scope: 'servers:read', rest: 'GET /pools/:id', area: 'pools', tool: 'pool_get',
      description: 'A capacity pool with its usage, bounds, unit rates in cents and its servers.' }),
    type: PoolDetail,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }) },
    resolve: (_root, args, ctx) => getPool(ctx.db, args.id),
  }),
);

builder.mutationField('poolCreate', (t) =>
  t.field({
    ...operation({ summary: 'Buy a pool', scope: 'servers:write', rest: 'POST /pools', area: 'pools', tool: 'pool_create',
      description: 'Buy a capacity pool of the given shape: the first month is debited from the wallet at once (400 when the balance does not cover it; nothing is charged), then it renews monthly. Servers created inside it cost nothing more.' }),
    type: PoolDetail,
    args: { productId: t.arg.string({ required: true, description: 'The pool product, from GET /pools/catalogue.', ...example('pool-fra1') }), label: t.arg.string({ required: true, description: 'A name for the pool.', ...rules(LABEL_RULES) }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => createPool(ctx, args),
  }),
);

const ResizeQuote = builder.objectRef<Awaited<ReturnType<typeof quotePoolResize>>>('PoolResizeQuote').implement({
  description: 'What a resize costs: new monthly price, difference, and the prorated charge now.',
  fields: (t) => ({
    poolId: t.exposeString('poolId'),
    vcpu: t.exposeInt('vcpu'),
    ram2gb: t.exposeInt('ram2gb'),
    disk100: t.exposeInt('disk100'),
    ip16: t.exposeInt('ip16'),
    currentMonthlyUsdCents: t.exposeInt('currentMonthlyUsdCents'),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', { description: 'Monthly price after the resize, from the next renewal.' }),
    differenceUsdCents: t.exposeInt('differenceUsdCents', { description: 'New monthly minus current monthly (negative when shrinking).' }),
    charge_now_usd_cents: t.exposeInt('charge_now_usd_cents', { description: 'Growth only, at the sold rates, prorated for the days left in the cycle.' }),
    daysLeft: t.exposeInt('daysLeft'),
    cycleDays: t.exposeInt('cycleDays'),
    renewsAt: t.expose('renewsAt', { type: 'DateTime' }),
  }),
});

builder.queryField('poolResizeQuote', (t) =>
  t.field({
    ...operation({ summary: 'Quote a pool resize', scope: 'servers:read', rest: 'POST /pools/:id/resize-quote', area: 'pools', tool: 'pool_resize_quote',
      description: 'Price a pool resize at the rates the pool was sold at: the new monthly price and what growing costs now, prorated. Nothing is charged.' }),
    type: ResizeQuote,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => quotePoolResize(ctx, args.id, args),
  }),
);

builder.mutationField('poolResize', (t) =>
  t.field({
    ...operation({ summary: 'Resize a pool', scope: 'servers:write', rest: 'PATCH /pools/:id', area: 'pools', tool: 'pool_resize',
      description: 'Resize a pool to a whole new shape (absolute units, not deltas). Growth is debited from the wallet now, prorated to the renewal date. 409 when the pool\'s servers or assigned addresses hold more than the new shape.' }),
    type: PoolDetail,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => resizePool(ctx, args.id, args),
  }),
);

builder.mutationField('poolServerCreate', (t) =>
  t.prismaField({
    ...operation({ summary: 'Create a pool server', scope: 'servers:write', rest: 'POST /pools/:id/servers', area: 'pools', tool: 'pool_server_create',
      description: 'Create a Linux server inside a pool at no extra cost, with addresses from the pool block; it is `provisioning`, then `running`. 400 when the pool\'s free quota or addresses do not fit the plan (resize the pool first).', fires: ['server.created'] }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The pool id.' }),
      productId: t.arg.string({ required: true, description: 'Server plan giving vCPU, RAM and disk.' }),
      label: t.arg.string({ required: true, description: 'A name for the server.', ...rules(LABEL_RULES) }),
      os: t.arg.string({ required: false, description: 'OS family (linux); must match the template when given.' }),
      osTemplate: t.arg.string({ required: true, description: 'A Linux OS template.' }),
      ipCount: t.arg.int({ required: false, description: 'Public addresses from the pool block (default 1; 0 = private-only).', ...rules({ minimum: 0, maximum: MAX_POOL_SERVER_IPS }) }),
    },
    resolve: (query, _root, args, ctx) => createServerInPool(ctx, args.id, { productId: args.productId, label: args.label, os: args.os ?? undefined, osTemplate: args.osTemplate, ipCount: args.ipCount ?? undefined }, query),
  }),
);

export const PoolIp = builder.objectRef<Awaited<ReturnType<typeof listPoolIps>>[number]>('PoolIp').implement({
  description: 'An IPv4 address of a pool block.',
  fields: (t) => ({
    ip: t.exposeString('ip'),
    version: t.exposeInt('version'),
    ptr: t.exposeString('ptr', { nullable: true }),
    zoneHosted: t.exposeBoolean('zoneHosted'),
    assignedTo: t.exposeString('assignedTo', { nullable: true, description: 'The server holding it; null means free in the block.' }),
  }),
});

const PoolIpList = listType('PoolIpList', PoolIp);

builder.queryField('poolIps', (t) =>
  t.field({
    ...operation({ summary: 'List pool addresses', scope: 'servers:read', rest: 'GET /pools/:id/ips', area: 'pools', tool: 'pool_ips_list',
      description: 'Every IPv4 address of a pool\'s block with its PTR and the server holding it (null when free), whole.' }),
    type: PoolIpList,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }) },
    resolve: async (_root, args, ctx) => wholeList(await listPoolIps(ctx.db, args.id)),
  }),
);

const PoolIpChange = builder.inputType('PoolIpChange', {
  fields: (t) => ({
    ip: t.string({ required: true }),
    serverId: t.string({ required: false, description: 'A server of this pool, or null to return the address to the block.' }),
  }),
});

builder.mutationField('poolIpsApply', (t) =>
  t.field({
    ...operation({ summary: 'Apply address changes', scope: 'servers:write', rest: 'POST /pools/:id/ips/apply', area: 'pools', tool: 'pool_ips_apply', rateLimit: 'poolIpApply',
      description: 'Assign, move or return pool addresses in one atomic batch: every change applies or none does (400 names the first bad change). At most 6 calls per minute per credential. Answers the pool\'s addresses.' }),
    type: [PoolIp],
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), changes: t.arg({ type: [PoolIpChange], required: true, description: 'The changes, applied all or none.', ...rules({ minItems: 1, maxItems: MAX_IP_CHANGES }) }) },
    resolve: (_root, args, ctx) => applyPoolIps(ctx, args.id, args.changes),
  }),
);

builder.mutationField('poolDelete', (t) =>
  t.field({
    ...operation({ summary: 'Delete a pool', scope: 'servers:destroy', rest: 'DELETE /pools/:id', area: 'pools', tool: 'pool_delete',
      description: 'Delete a capacity pool: its servers are powered off and preserved (they can be snapshotted or terminated, not started), its IP block is returned and nothing is refunded.' }),
    type: Pool,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }) },
    resolve: (_root, args, ctx) => deletePool(ctx, args.id),
  }),
);
