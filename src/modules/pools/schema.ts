import type { ArgBuilder, ObjectFieldBuilder } from '@pothos/core';
import { builder, type Types } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { Node } from '../../schema/graph.ts';
import { rules } from '../../schema/input-rules.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operation } from '../../schema/operation.ts';
import { LABEL_RULES, SERVER_STATES } from '../servers/server-row.ts';
import { listType } from '../../schema/pagination.ts';
import { wholeList } from '../../core/paging.ts';
import { POOL_UNITS, type PoolUnits } from '../catalogue/service.ts';
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
  POOL_SERVER_OS_FAMILIES,
  poolCatalogue,
  quotePool,
  quotePoolResize,
  resizePool,
  POOL_SHAPE_BELOW_USE,
} from './service.ts';
import { POOL_STATES } from './status.ts';

const PoolUnitsType = builder.objectRef<PoolUnits>('PoolUnits').implement({
  description:
    'A value per pool unit: vcpu (1 vCPU), ram2gb (2 GB RAM), disk100 (100 GB disk), ip16 (16 IPv4 addresses).',
  fields: (t) => ({
    vcpu: t.exposeInt('vcpu', { description: 'For 1 vCPU.' }),
    ram2gb: t.exposeInt('ram2gb', { description: 'For 2 GB RAM.' }),
    disk100: t.exposeInt('disk100', { description: 'For 100 GB disk.' }),
    ip16: t.exposeInt('ip16', { description: 'For 16 IPv4 addresses.' }),
  }),
});

const Range = builder.objectRef<{ min: number; max: number }>('PoolUnitRange').implement({
  description: 'The range a slider may move between (step 1).',
  fields: (t) => ({
    min: t.exposeInt('min', { description: 'Lowest value allowed.' }),
    max: t.exposeInt('max', { description: 'Highest value allowed.' }),
  }),
});

type Bounds = Record<keyof PoolUnits, { min: number; max: number }>;
const PoolBounds = builder.objectRef<Bounds>('PoolBounds').implement({
  description: 'The range each unit may move between, from the live catalogue.',
  fields: (t) => ({
    vcpu: t.field({ type: Range, description: 'vCPUs.', resolve: (b) => b.vcpu }),
    ram2gb: t.field({ type: Range, description: 'Blocks of 2 GB RAM.', resolve: (b) => b.ram2gb }),
    disk100: t.field({ type: Range, description: 'Blocks of 100 GB disk.', resolve: (b) => b.disk100 }),
    ip16: t.field({ type: Range, description: 'Blocks of 16 IPv4 addresses.', resolve: (b) => b.ip16 }),
  }),
});

const PoolUnitSizes = builder.objectRef<Record<keyof PoolUnits, string>>('PoolUnitSizes').implement({
  description: 'What one unit of each slider is.',
  fields: (t) => ({
    vcpu: t.exposeString('vcpu', { description: 'One vcpu unit, in words.', ...example('1 vCPU') }),
    ram2gb: t.exposeString('ram2gb', { description: 'One ram2gb unit, in words.', ...example('2 GB RAM') }),
    disk100: t.exposeString('disk100', { description: 'One disk100 unit, in words.', ...example('100 GB disk') }),
    ip16: t.exposeString('ip16', { description: 'One ip16 unit, in words.', ...example('16 IPv4 addresses') }),
  }),
});

const PoolProduct = builder.objectRef<Awaited<ReturnType<typeof poolCatalogue>>[number]>('PoolProduct').implement({
  description: 'A pool product: per-unit monthly prices in cents and slider bounds.',
  fields: (t) => ({
    productId: t.exposeString('productId', {
      description: 'The pool product; pass it to quote and buy.',
      ...example('pool-fra1'),
    }),
    name: t.exposeString('name', {
      description: 'Display name of the product.',
      ...example('Capacity pool, Frankfurt'),
    }),
    rates_cents: t.field({
      type: PoolUnitsType,
      resolve: (p) => p.rates_cents,
      description: 'Monthly price of one unit, in US cents.',
    }),
    bounds: t.field({
      type: PoolBounds,
      description: 'The range each unit may be bought in.',
      resolve: (p) => p.bounds,
    }),
    unitSizes: t.field({ type: PoolUnitSizes, description: 'What one unit of each is.', resolve: (p) => p.unitSizes }),
  }),
});

const PoolProductList = listType('PoolProductList', PoolProduct);

builder.queryField('poolCatalogue', (t) =>
  t.field({
    ...operation({
      summary: 'List pool products',
      scope: 'servers:read',
      rest: 'GET /pools/catalogue',
      area: 'pools',
      tool: 'pools_catalogue',
      description: 'The pool products with per-unit prices in cents and the bounds of each unit (slider ranges).',
    }),
    type: PoolProductList,
    resolve: async (_root, _args, ctx) => wholeList(await poolCatalogue(ctx.db)),
  }),
);

type Quote = Awaited<ReturnType<typeof quotePool>>;
const QuoteLine = builder.objectRef<Quote['breakdown'][number]>('PoolQuoteLine').implement({
  fields: (t) => ({
    unit: t.exposeString('unit', { ...values(POOL_UNITS), description: 'vcpu, ram2gb, disk100 or ip16.' }),
    description: t.exposeString('description', { description: 'What one unit is.', ...example('2 GB RAM') }),
    quantity: t.exposeInt('quantity', { description: 'Units selected.' }),
    unitPriceUsdCents: t.exposeInt('unitPriceUsdCents', { description: 'Monthly price of one unit, in US cents.' }),
    amountUsdCents: t.exposeInt('amountUsdCents', {
      description: 'quantity × unitPriceUsdCents: monthly, in US cents.',
    }),
  }),
});
const QuoteResolved = builder.objectRef<Quote['resolved']>('PoolQuoteResolved').implement({
  description: 'The selection in plain figures.',
  fields: (t) => ({
    vcpu: t.exposeInt('vcpu', { description: 'vCPUs.' }),
    ramGb: t.exposeInt('ramGb', { description: 'RAM in GB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk in GB.' }),
    ipv4Addresses: t.exposeInt('ipv4Addresses', { description: 'IPv4 addresses.' }),
  }),
});
const PoolQuote = builder.objectRef<Quote>('PoolQuote').implement({
  description: 'The monthly price of a pool selection, priced by the server.',
  fields: (t) => ({
    productId: t.exposeString('productId', { description: 'The pool product priced.', ...example('pool-fra1') }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', { description: 'Monthly price of the selection, in US cents.' }),
    breakdown: t.field({ type: [QuoteLine], description: 'One line per unit.', resolve: (q) => q.breakdown }),
    resolved: t.field({
      type: QuoteResolved,
      description: 'The selection in vCPUs, GB and addresses.',
      resolve: (q) => q.resolved,
    }),
  }),
});

const unitArgs = (t: { arg: ArgBuilder<Types> }) => ({
  vcpu: t.arg.int({ required: true, description: "vCPUs, within the product's bounds.", ...example(8) }),
  ram2gb: t.arg.int({ required: true, description: "Blocks of 2 GB RAM, within the product's bounds.", ...example(8) }),
  disk100: t.arg.int({
    required: true,
    description: "Blocks of 100 GB disk, within the product's bounds.",
    ...example(2),
  }),
  ip16: t.arg.int({
    required: true,
    description: "Blocks of 16 IPv4 addresses, within the product's bounds.",
    ...example(1),
  }),
});

builder.queryField('poolQuote', (t) =>
  t.field({
    ...operation({
      summary: 'Quote a pool',
      scope: 'servers:read',
      rest: 'POST /pools/quote',
      area: 'pools',
      tool: 'pool_quote',
      description:
        "Price a pool selection: the monthly price and its per-unit breakdown. Nothing is charged or stored. 400 when a unit is outside the product's bounds.",
    }),
    type: PoolQuote,
    args: {
      productId: t.arg.string({
        required: true,
        description: 'The pool product, from GET /pools/catalogue.',
        ...example('pool-fra1'),
      }),
      ...unitArgs(t),
    },
    resolve: (_root, args, ctx) => quotePool(ctx.db, args),
  }),
);

type Summary = Awaited<ReturnType<typeof listPools>>['data'][number];
type Detail = Awaited<ReturnType<typeof getPool>>;

const PoolQuota = builder.objectRef<Summary['quota']>('PoolQuota').implement({
  description: 'The pool units resolved: vCPUs, MB of RAM, GB of disk, IPv4 addresses.',
  fields: (t) => ({
    vcpu: t.exposeInt('vcpu', { description: 'vCPUs.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk in GB.' }),
    ips: t.exposeInt('ips', { description: 'IPv4 addresses in the block.' }),
  }),
});
const PoolUsage = builder.objectRef<Detail['usage']>('PoolUsage').implement({
  description: 'Resources provisioned inside the pool (a powered-off server still holds its allocation).',
  fields: (t) => ({
    vcpu: t.exposeInt('vcpu', { description: 'vCPUs of its servers.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM of its servers, in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk of its servers, in GB.' }),
    ips: t.exposeInt('ips', { description: 'Addresses assigned to servers.' }),
    servers: t.exposeInt('servers', { description: 'Servers in the pool.' }),
  }),
});
const PoolServer = builder.objectRef<Detail['servers'][number]>('PoolServer').implement({
  description: 'A server inside the pool.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The server id (srv_…).', ...example('srv_01jq8k2m4p6rab3c5d7e9f1g2h') }),
    label: t.exposeString('label', { description: 'Your name for the server.' }),
    status: t.exposeString('status', {
      description: 'provisioning, running, stopped, rebooting, restoring, reinstalling or suspended.',
      ...values(SERVER_STATES, 'running'),
    }),
    productId: t.exposeString('productId', { description: 'The server plan giving its size.' }),
    vcpu: t.exposeInt('vcpu', { description: 'vCPU cores.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk size in GB.' }),
    os: t.exposeString('os', { ...values(POOL_SERVER_OS_FAMILIES), description: 'OS family: linux.' }),
    osTemplate: t.exposeString('osTemplate', { description: 'The OS template installed.' }),
    ips: t.exposeStringList('ips', { description: 'Its addresses from the pool block.' }),
  }),
});

const summaryFields = (t: ObjectFieldBuilder<Types, Summary>) => ({
  id: t.exposeID('id', { description: 'The pool id (pool_…).' }),
  productId: t.exposeString('productId', {
    description: 'The pool product it was bought as.',
    ...example('pool-fra1'),
  }),
  label: t.exposeString('label', { description: 'Your name for the pool.' }),
  status: t.exposeString('status', { ...values(POOL_STATES), description: 'active or deleted.' }),
  vcpu: t.exposeInt('vcpu', { description: 'vcpu units bought (1 vCPU each).' }),
  ram2gb: t.exposeInt('ram2gb', { description: 'ram2gb units bought (2 GB RAM each).' }),
  disk100: t.exposeInt('disk100', { description: 'disk100 units bought (100 GB disk each).' }),
  ip16: t.exposeInt('ip16', { description: 'ip16 units bought (16 IPv4 addresses each).' }),
  quota: t.field({
    type: PoolQuota,
    description: 'The units in vCPUs, MB, GB and addresses.',
    resolve: (p: Summary) => p.quota,
  }),
  rates_cents: t.field({
    type: PoolUnitsType,
    resolve: (p: Summary) => p.rates_cents,
    description: 'Per-unit monthly prices the pool was sold at; resizes are charged at these.',
  }),
  monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
    description: 'Monthly price in US cents, debited at each renewal.',
  }),
  renewsAt: t.expose('renewsAt', { type: 'DateTime', description: 'Next renewal, when the wallet is debited.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the pool was bought.' }),
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
    usage: t.field({ type: PoolUsage, description: 'What its servers hold now.', resolve: (p) => p.usage }),
    bounds: t.field({
      type: PoolBounds,
      nullable: true,
      description: 'The range each unit may be resized in; null when the product is no longer offered.',
      resolve: (p) => p.bounds,
    }),
    servers: t.field({ type: [PoolServer], description: 'Its servers, oldest first.', resolve: (p) => p.servers }),
  }),
});

const PoolList = listType('PoolList', Pool);

pagedListQuery('pools', PoolList, (ctx, args) => listPools(ctx.db, args), {
  summary: 'List pools',
  scope: 'servers:read',
  rest: 'GET /pools',
  area: 'pools',
  tool: 'pools_list',
  description: 'The capacity pools with quotas, status, monthly price and renewal date, newest first.',
});

idOperation(
  'query',
  'pool',
  PoolDetail,
  'The pool id.',
  (ctx, id) => getPool(ctx.db, id),
  operation({
    summary: 'Get a pool',
    scope: 'servers:read',
    rest: 'GET /pools/:id',
    area: 'pools',
    tool: 'pool_get',
    description: 'A capacity pool with its usage, bounds, unit rates in cents and its servers.',
  }),
);

builder.mutationField('poolCreate', (t) =>
  t.field({
    ...operation({
      summary: 'Buy a pool',
      scope: 'servers:write',
      rest: 'POST /pools',
      area: 'pools',
      tool: 'pool_create',
      description:
        'Buy a capacity pool of the given shape: the first month is debited from the wallet at once (400 when the balance does not cover it; nothing is charged), then it renews monthly. Servers created inside it cost nothing more.',
    }),
    type: PoolDetail,
    args: {
      productId: t.arg.string({
        required: true,
        description: 'The pool product, from GET /pools/catalogue.',
        ...example('pool-fra1'),
      }),
      label: t.arg.string({ required: true, description: 'A name for the pool.', ...rules(LABEL_RULES) }),
      ...unitArgs(t),
    },
    resolve: (_root, args, ctx) => createPool(ctx, args),
  }),
);

const ResizeQuote = builder.objectRef<Awaited<ReturnType<typeof quotePoolResize>>>('PoolResizeQuote').implement({
  description: 'What a resize costs: new monthly price, difference, and the prorated charge now.',
  fields: (t) => ({
    poolId: t.exposeString('poolId', { description: 'The pool.' }),
    vcpu: t.exposeInt('vcpu', { description: 'vcpu units after the resize.' }),
    ram2gb: t.exposeInt('ram2gb', { description: 'ram2gb units after the resize.' }),
    disk100: t.exposeInt('disk100', { description: 'disk100 units after the resize.' }),
    ip16: t.exposeInt('ip16', { description: 'ip16 units after the resize.' }),
    currentMonthlyUsdCents: t.exposeInt('currentMonthlyUsdCents', { description: 'Monthly price now, in US cents.' }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
      description: 'Monthly price after the resize, from the next renewal.',
    }),
    differenceUsdCents: t.exposeInt('differenceUsdCents', {
      description: 'New monthly minus current monthly (negative when shrinking).',
    }),
    charge_now_usd_cents: t.exposeInt('charge_now_usd_cents', {
      description: 'Growth only, at the sold rates, prorated for the days left in the cycle.',
    }),
    daysLeft: t.exposeInt('daysLeft', { description: 'Days left in the current billing cycle.' }),
    cycleDays: t.exposeInt('cycleDays', { description: 'Days in the current billing cycle.' }),
    renewsAt: t.expose('renewsAt', {
      type: 'DateTime',
      description: 'End of the current cycle: the new monthly price applies from then.',
    }),
  }),
});

builder.queryField('poolResizeQuote', (t) =>
  t.field({
    ...operation({
      summary: 'Quote a pool resize',
      scope: 'servers:read',
      refuses: [POOL_SHAPE_BELOW_USE],
      rest: 'POST /pools/:id/resize-quote',
      area: 'pools',
      tool: 'pool_resize_quote',
      description:
        'Price a pool resize at the rates the pool was sold at: the new monthly price and what growing costs now, prorated. Nothing is charged.',
    }),
    type: ResizeQuote,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => quotePoolResize(ctx, args.id, args),
  }),
);

builder.mutationField('poolResize', (t) =>
  t.field({
    ...operation({
      summary: 'Resize a pool',
      scope: 'servers:write',
      refuses: [POOL_SHAPE_BELOW_USE],
      rest: 'PATCH /pools/:id',
      area: 'pools',
      tool: 'pool_resize',
      description:
        "Resize a pool to a whole new shape (absolute units, not deltas). Growth is debited from the wallet now, prorated to the renewal date. 409 when the pool's servers or assigned addresses hold more than the new shape.",
    }),
    type: PoolDetail,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => resizePool(ctx, args.id, args),
  }),
);

builder.mutationField('poolServerCreate', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Create a pool server',
      scope: 'servers:write',
      rest: 'POST /pools/:id/servers',
      area: 'pools',
      tool: 'pool_server_create',
      description:
        "Create a Linux server inside a pool at no extra cost, with addresses from the pool block; it is `provisioning`, then `running`. 400 when the pool's free quota or addresses do not fit the plan (resize the pool first).",
      fires: ['server.created'],
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The pool id.' }),
      productId: t.arg.string({ required: true, description: 'Server plan giving vCPU, RAM and disk.' }),
      label: t.arg.string({ required: true, description: 'A name for the server.', ...rules(LABEL_RULES) }),
      os: t.arg.string({ required: false, description: 'OS family (linux); must match the template when given.' }),
      osTemplate: t.arg.string({ required: true, description: 'A Linux OS template.' }),
      ipCount: t.arg.int({
        required: false,
        description: 'Public addresses from the pool block (default 1; 0 = private-only).',
        ...rules({ minimum: 0, maximum: MAX_POOL_SERVER_IPS }),
      }),
    },
    resolve: (query, _root, args, ctx) =>
      createServerInPool(
        ctx,
        args.id,
        {
          productId: args.productId,
          label: args.label,
          os: args.os ?? undefined,
          osTemplate: args.osTemplate,
          ipCount: args.ipCount ?? undefined,
        },
        query,
      ),
  }),
);

export const PoolIp = builder.objectRef<Awaited<ReturnType<typeof listPoolIps>>[number]>('PoolIp').implement({
  description: 'An IPv4 address of a pool block.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'The IPv4 address.' }),
    version: t.exposeInt('version', { description: 'IP version: 4.', ...example(4) }),
    ptr: t.exposeString('ptr', { nullable: true, description: 'Reverse DNS (PTR) name; null when none is set.' }),
    zoneHosted: t.exposeBoolean('zoneHosted', {
      description: 'False when the reverse zone is not hosted here: the PTR cannot be managed.',
    }),
    assignedTo: t.exposeString('assignedTo', {
      nullable: true,
      description: 'The server holding it; null means free in the block.',
    }),
  }),
});

const PoolIpList = listType('PoolIpList', PoolIp);

builder.queryField('poolIps', (t) =>
  t.field({
    ...operation({
      summary: 'List pool addresses',
      scope: 'servers:read',
      rest: 'GET /pools/:id/ips',
      area: 'pools',
      tool: 'pool_ips_list',
      description:
        "Every IPv4 address of a pool's block with its PTR and the server holding it (null when free), whole.",
    }),
    type: PoolIpList,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }) },
    resolve: async (_root, args, ctx) => wholeList(await listPoolIps(ctx.db, args.id)),
  }),
);

const PoolIpChange = builder.inputType('PoolIpChange', {
  fields: (t) => ({
    ip: t.string({ required: true, description: 'An address of the pool block.' }),
    serverId: t.string({
      required: false,
      description: 'A server of this pool, or null to return the address to the block.',
    }),
  }),
});

builder.mutationField('poolIpsApply', (t) =>
  t.field({
    ...operation({
      summary: 'Apply address changes',
      scope: 'servers:write',
      rest: 'POST /pools/:id/ips/apply',
      area: 'pools',
      tool: 'pool_ips_apply',
      rateLimit: 'poolIpApply',
      description:
        "Assign, move or return pool addresses in one atomic batch: every change applies or none does (400 names the first bad change). At most 6 calls per minute per credential. Answers the pool's addresses.",
    }),
    type: [PoolIp],
    args: {
      id: t.arg.id({ required: true, description: 'The pool id.' }),
      changes: t.arg({
        type: [PoolIpChange],
        required: true,
        description: 'The changes, applied all or none.',
        ...rules({ minItems: 1, maxItems: MAX_IP_CHANGES }),
      }),
    },
    resolve: (_root, args, ctx) => applyPoolIps(ctx, args.id, args.changes),
  }),
);

idOperation(
  'mutation',
  'poolDelete',
  Pool,
  'The pool id.',
  deletePool,
  operation({
    summary: 'Delete a pool',
    scope: 'servers:destroy',
    rest: 'DELETE /pools/:id',
    area: 'pools',
    tool: 'pool_delete',
    description:
      'Delete a capacity pool: its servers are powered off and preserved (they can be snapshotted or terminated, not started), its IP block is returned and nothing is refunded.',
  }),
);
