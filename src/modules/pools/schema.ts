import type { ObjectFieldBuilder } from '@pothos/core';
import { builder, type Types } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { example, values } from '../../schema/examples.ts';
import { requestLoader } from '../../schema/graph.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, destroys, spends } from '../../schema/operation.ts';
import { LABEL_RULES, SERVER_STATES } from '../servers/server-row.ts';
import type { RequestContext } from '../../schema/context.ts';
import { listConnection } from '../../schema/pagination.ts';
import { restDetailType } from '../../schema/rest-name.ts';
import {
  createPool,
  deletePool,
  getPool,
  getPools,
  listPools,
  POOL_SERVER_OS_FAMILIES,
  quotePoolPurchase,
  quotePoolResize,
  quotePoolResizeCharge,
  resizePool,
  POOL_SHAPE_BELOW_USE,
  poolsByIds,
} from './service.ts';
import { POOL_STATES } from './status.ts';
// The pools area's other GraphQL fields, one file per part of the product: the catalogue and
// quotes (whose unit types a pool is shown in), and what a pool holds.
import { PoolBounds, PoolUnitsType, unitArgs } from './catalogue.schema.ts';
import './members.schema.ts';
import { poolsArea } from './manifest.ts';

const op = operationsOf(poolsArea);

// Capacity pools: reading them, buying, resizing and deleting.

type Summary = Awaited<ReturnType<typeof listPools>>['data'][number];
type Detail = Awaited<ReturnType<typeof getPool>>;
/** A pool read whole (its REST detail) carries these; one from a list or an edge reads them on demand. */
type DetailParts = Partial<Omit<Detail, keyof Summary>>;

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

const summaryFields = (t: ObjectFieldBuilder<Types, Summary & DetailParts>) => ({
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
  ratesCents: t.field({
    restName: 'rates_cents',
    type: PoolUnitsType,
    resolve: (p: Summary) => p.ratesCents,
    description: 'Per-unit monthly prices the pool was sold at; resizes are charged at these.',
  }),
  monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
    description: 'Monthly price in US cents, debited at each renewal.',
  }),
  renewsAt: t.expose('renewsAt', { type: 'DateTime', description: 'Next renewal, when the wallet is debited.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the pool was bought.' }),
});

/**
 * The details of every pool a level of a query reaches in one statement, shared by the three
 * fields that need them (a `t.loadable` field's loader is its own, which would read them three
 * times), and not read for a pool that already holds them (read by id).
 */
const poolDetails = requestLoader<string, Detail>((ids, ctx) => getPools(ctx.db, ids));

const detailOfPool = (ctx: RequestContext, pool: Summary & DetailParts): Promise<DetailParts> =>
  pool.usage ? Promise.resolve(pool) : poolDetails(ctx).load(pool.id);

// One type: REST shows its list items without usage, bounds and servers, and its detail (PoolDetail) with them.
export const Pool = builder.node(builder.objectRef<Summary & DetailParts>('Pool'), {
  ...loadedNode('Pool', {
    prefix: 'pool',
    scope: 'servers:read',
    id: { description: 'The pool id (pool_…).' },
    load: (ctx, ids) => poolsByIds(ctx.db, ids),
  }),
  description: 'A capacity pool with its quotas, status, monthly price and renewal date.',
  ...restDetailType('PoolDetail', 'A capacity pool with usage, bounds, sold rates and its servers.'),
  fields: (t) => ({
    ...summaryFields(t),
    usage: t.field({
      restDetail: true,
      type: PoolUsage,
      description: 'What its servers hold now.',
      resolve: async (p, _args, ctx) => (await detailOfPool(ctx, p)).usage!,
    }),
    bounds: t.field({
      restDetail: true,
      type: PoolBounds,
      nullable: true,
      description: 'The range each unit may be resized in; null when the product is no longer offered.',
      resolve: async (p, _args, ctx) => (await detailOfPool(ctx, p)).bounds ?? null,
    }),
    // `servers` is the graph's connection of whole servers; REST's pool detail lists these under that name.
    members: t.field({
      restDetail: true,
      restName: 'servers',
      type: [PoolServer],
      description: 'Its servers, oldest first.',
      resolve: async (p, _args, ctx) => (await detailOfPool(ctx, p)).servers!,
    }),
  }),
});

const PoolConnection = listConnection(Pool);

pagedListQuery({
  name: 'pools',
  type: PoolConnection,
  list: (ctx, args) => listPools(ctx.db, args),
  operation: op({
    summary: 'List pools',
    scope: 'servers:read',
    rest: 'GET /pools',
    toolVerb: 'list',
    description: 'The capacity pools with quotas, status, monthly price and renewal date, newest first.',
  }),
});

idOperation({
  root: 'query',
  name: 'pool',
  type: Pool,
  idDescription: 'The pool id.',
  run: (ctx, id) => getPool(ctx.db, id),
  operation: op({
    summary: 'Get a pool',
    scope: 'servers:read',
    rest: 'GET /pools/:id',
    toolVerb: 'get',
    description: 'A capacity pool with its usage, bounds, unit rates in cents and its servers.',
  }),
  restDetail: true,
});

builder.mutationField('poolCreate', (t) =>
  t.field({
    ...op({
      summary: 'Buy a pool',
      scope: 'servers:write',
      rest: 'POST /pools',
      consequence: spends((ctx, a) => quotePoolPurchase(ctx, a as Parameters<typeof quotePoolPurchase>[1])),
      description:
        'Buy a capacity pool of the given shape: the first month is debited from the wallet at once (400 when the balance does not cover it; nothing is charged), then it renews monthly. Servers created inside it cost nothing more.',
      fires: ['pool.created'],
    }),
    restDetail: true,
    type: Pool,
    args: {
      productId: t.arg.string({
        required: true,
        description: 'The pool product, from GET /pools/catalogue.',
        ...example('pool-fra1'),
      }),
      label: t.arg.string({ required: true, description: 'A name for the pool.', ...inputSchema(LABEL_RULES) }),
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
    chargeNowUsdCents: t.exposeInt('chargeNowUsdCents', {
      restName: 'charge_now_usd_cents',
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
    ...op({
      summary: 'Quote a pool resize',
      scope: 'servers:read',
      refuses: [POOL_SHAPE_BELOW_USE],
      rest: 'POST /pools/:id/resize-quote',
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
    ...op({
      summary: 'Resize a pool',
      scope: 'servers:write',
      refuses: [POOL_SHAPE_BELOW_USE],
      rest: 'PATCH /pools/:id',
      consequence: spends((ctx, a) => quotePoolResizeCharge(ctx, String(a.id), a)),
      description:
        "Resize a pool to a whole new shape (absolute units, not deltas). Growth is debited from the wallet now, prorated to the renewal date. 409 when the pool's servers or assigned addresses hold more than the new shape. The shape it already has changes nothing.",
      fires: ['pool.resized'],
    }),
    restDetail: true,
    type: Pool,
    args: { id: t.arg.id({ required: true, description: 'The pool id.' }), ...unitArgs(t) },
    resolve: (_root, args, ctx) => resizePool(ctx, args.id, args),
  }),
);

idOperation({
  root: 'mutation',
  name: 'poolDelete',
  type: Pool,
  idDescription: 'The pool id.',
  run: deletePool,
  operation: op({
    summary: 'Delete a pool',
    scope: 'servers:destroy',
    rest: 'DELETE /pools/:id',
    consequence: destroys(
      'Delete capacity pool {id}: its servers are powered off for good, its address block is returned and nothing is refunded.',
    ),
    description:
      'Delete a capacity pool: its servers are powered off and preserved (they can be snapshotted or terminated, not started), its IP block is returned and nothing is refunded.',
    fires: ['pool.deleted'],
  }),
});
