import type { ArgBuilder } from '@pothos/core';
import { builder, type Types } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { operationsOf } from '../../schema/operation.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { listConnection } from '../../schema/pagination.ts';
import { POOL_UNITS, type PoolUnits } from '../catalogue/service.ts';
import { poolCatalogue, quotePool } from './service.ts';
import { poolsArea } from './manifest.ts';

const op = operationsOf(poolsArea);

// Pool products and quotes: the catalogue a pool is bought from, and the units every pool is sized in.

export const PoolUnitsType = builder.objectRef<PoolUnits>('PoolUnits').implement({
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
export const PoolBounds = builder.objectRef<Bounds>('PoolBounds').implement({
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
    ratesCents: t.expose('ratesCents', {
      restName: 'rates_cents',
      type: PoolUnitsType,
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

const PoolProductConnection = listConnection(PoolProduct);

wholeListQuery({
  name: 'poolCatalogue',
  type: PoolProductConnection,
  list: (ctx) => poolCatalogue(ctx.db),
  operation: op({
    summary: 'List pool products',
    scope: 'servers:read',
    rest: 'GET /pools/catalogue',
    tool: 'pools_catalogue',
    description: 'The pool products with per-unit prices in cents and the bounds of each unit (slider ranges).',
  }),
});

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

export const unitArgs = (t: { arg: ArgBuilder<Types> }) => ({
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
    ...op({
      summary: 'Quote a pool',
      scope: 'servers:read',
      rest: 'POST /pools/quote',
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
