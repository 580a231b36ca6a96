import type { PrismaClient } from '../../generated/prisma/client.ts';
import { badRequest } from '../../errors.ts';
import type { Tx } from '../../db/tx.ts';

export async function getCatalogue(prisma: PrismaClient) {
  const [products, osTemplates] = await Promise.all([
    prisma.product.findMany({ where: { active: true }, orderBy: [{ kind: 'asc' }, { sortOrder: 'asc' }] }),
    prisma.osTemplate.findMany({ orderBy: { sortOrder: 'asc' } }),
  ]);
  const byKind = (kind: string) => products.filter((p) => p.kind === kind);
  return {
    serverPlans: byKind('server_plan').map((p) => ({ id: p.id, ...planFields(p) })),
    osTemplates: osTemplates.map(templateFields),
    addons: byKind('addon').map(({ id, name, monthlyUsdCents, details }) => ({
      id,
      name,
      monthlyUsdCents,
      ...(details as object),
    })),
    poolProducts: byKind('pool').map(({ id, name, details }) => ({ id, name, ...(details as object) })),
    hostingPlans: byKind('hosting_plan').map(({ id, name, monthlyUsdCents, details }) => ({
      id,
      name,
      monthlyUsdCents,
      ...(details as object),
    })),
  };
}

/** What a standalone server is ordered from: the active plans (cheapest first within a family) and the OS templates. */
export async function serverOrderCatalogue(db: CatalogueDb) {
  const [plans, templates] = await Promise.all([
    db.product.findMany({ where: { kind: 'server_plan', active: true }, orderBy: { sortOrder: 'asc' } }),
    db.osTemplate.findMany({ orderBy: { sortOrder: 'asc' } }),
  ]);
  return {
    plans: plans.map((p) => ({ productId: p.id, ...planFields(p) })),
    osTemplates: templates.map(templateFields),
  };
}

type PlanRow = { family: string; name: string; vcpu: number; ramMb: number; diskGb: number; monthlyUsdCents: number };

/** A server plan as the operator's catalogue and the customer's order catalogue show it, after its id. */
const planFields = ({ family, name, vcpu, ramMb, diskGb, monthlyUsdCents }: PlanRow) => ({
  family,
  name,
  vcpu,
  ramMb,
  diskGb,
  monthlyUsdCents,
});

const templateFields = ({ id, os, name }: { id: string; os: string; name: string }) => ({ id, os, name });

/** Resolves an OS template (and checks `os` against it when given); 400 naming the field otherwise. */
export async function resolveOsTemplate(db: Pick<Tx, 'osTemplate'>, input: { osTemplate: unknown; os?: unknown }) {
  if (typeof input.osTemplate !== 'string' || !input.osTemplate)
    throw badRequest('osTemplate is required.', 'osTemplate');
  const template = await db.osTemplate.findUnique({ where: { id: input.osTemplate } });
  if (!template) throw badRequest(`osTemplate "${input.osTemplate}" is not in the catalogue.`, 'osTemplate');
  if (input.os !== undefined && input.os !== null && input.os !== template.os)
    throw badRequest(`os must be "${template.os}" for osTemplate "${template.id}".`, 'os');
  return template;
}

/** Resolves a server plan and OS template for an order; 400 naming the field otherwise. */
export async function resolveServerOrder(
  prisma: Pick<Tx, 'product' | 'osTemplate'>,
  input: { productId: unknown; os: unknown; osTemplate: unknown },
) {
  if (typeof input.productId !== 'string') throw badRequest('productId is required.', 'productId');
  if (typeof input.osTemplate !== 'string') throw badRequest('osTemplate is required.', 'osTemplate');
  const product = await prisma.product.findFirst({ where: { id: input.productId, kind: 'server_plan', active: true } });
  if (!product) throw badRequest(`productId "${input.productId}" is not a server plan in the catalogue.`, 'productId');
  const template = await prisma.osTemplate.findUnique({ where: { id: input.osTemplate } });
  if (!template) throw badRequest(`osTemplate "${input.osTemplate}" is not in the catalogue.`, 'osTemplate');
  if (input.os !== undefined && input.os !== template.os) {
    throw badRequest(`os must be "${template.os}" for osTemplate "${template.id}".`, 'os');
  }
  return { product, template };
}

type CatalogueDb = Pick<Tx, 'product' | 'osTemplate'>;

/** A server plan by id (active or not: a server keeps its plan after it leaves the catalogue). */
export async function getServerPlan(db: CatalogueDb, productId: string) {
  return db.product.findFirst({ where: { id: productId, kind: 'server_plan' } });
}

/** Plans a server on `current` can switch to in place: same family, same disk size, cheapest first (current included). */
export async function switchablePlans(db: CatalogueDb, current: { family: string; diskGb: number; id: string }) {
  const plans = await db.product.findMany({
    where: {
      kind: 'server_plan',
      family: current.family,
      diskGb: current.diskGb,
      OR: [{ active: true }, { id: current.id }],
    },
    orderBy: [{ monthlyUsdCents: 'asc' }, { vcpu: 'asc' }, { sortOrder: 'asc' }],
  });
  return plans;
}

export interface AddonProduct {
  id: string;
  name: string;
  monthlyUsdCents: number;
  type: string;
  ips: number;
  /** Initial stock of the simulated datacenter; null: not limited. */
  stock: number | null;
  distinctSubnets: boolean;
}

function toAddon(p: { id: string; name: string; monthlyUsdCents: number; details: unknown }): AddonProduct {
  const d = p.details as { type: string; ips?: number; stock?: number | null; distinctSubnets?: boolean };
  return {
    id: p.id,
    name: p.name,
    monthlyUsdCents: p.monthlyUsdCents,
    type: d.type,
    ips: d.ips ?? 0,
    stock: d.stock ?? null,
    distinctSubnets: d.distinctSubnets ?? false,
  };
}

export async function listAddonProducts(db: CatalogueDb): Promise<AddonProduct[]> {
  return (await db.product.findMany({ where: { kind: 'addon', active: true }, orderBy: { sortOrder: 'asc' } })).map(
    toAddon,
  );
}

/** An add-on product by id, including retired ones (an attached add-on can still be detached). */
export async function getAddonProduct(db: CatalogueDb, id: string): Promise<AddonProduct | null> {
  const p = await db.product.findFirst({ where: { id, kind: 'addon' } });
  return p ? toAddon(p) : null;
}

export const POOL_UNITS = ['vcpu', 'ram2gb', 'disk100', 'ip16'] as const;
export type PoolUnit = (typeof POOL_UNITS)[number];
export type PoolUnits = Record<PoolUnit, number>;

export interface PoolProduct {
  id: string;
  name: string;
  unitPricesCents: PoolUnits;
  bounds: Record<PoolUnit, { min: number; max: number }>;
  capacity: PoolUnits;
}

export function toPoolProduct(p: { id: string; name: string; details: unknown }): PoolProduct {
  const d = p.details as Omit<PoolProduct, 'id' | 'name'>;
  return { id: p.id, name: p.name, unitPricesCents: d.unitPricesCents, bounds: d.bounds, capacity: d.capacity };
}

export async function listPoolProducts(db: CatalogueDb): Promise<PoolProduct[]> {
  return (await db.product.findMany({ where: { kind: 'pool', active: true }, orderBy: { sortOrder: 'asc' } })).map(
    toPoolProduct,
  );
}

/** A pool product by id; `activeOnly` for purchases, any for existing pools (bounds of a resize). */
export async function getPoolProduct(db: CatalogueDb, id: string, activeOnly = true): Promise<PoolProduct | null> {
  const p = await db.product.findFirst({ where: { id, kind: 'pool', ...(activeOnly ? { active: true } : {}) } });
  return p ? toPoolProduct(p) : null;
}
