import type { PrismaClient } from '../../generated/prisma/client.ts';
import { badRequest } from '../../errors.ts';
import { OS_TEMPLATES, PRODUCTS } from './seed.ts';

/** Brings the catalogue rows in line with seed.ts (insert new, update changed). */
export async function seedCatalogue(prisma: PrismaClient): Promise<void> {
  await prisma.$transaction([
    ...PRODUCTS.map((p, i) => {
      const data = { ...p, vcpu: p.vcpu ?? 0, ramMb: p.ramMb ?? 0, diskGb: p.diskGb ?? 0, details: (p.details ?? {}) as object, sortOrder: i };
      return prisma.product.upsert({ where: { id: p.id }, create: data, update: data });
    }),
    ...OS_TEMPLATES.map((t, i) => prisma.osTemplate.upsert({ where: { id: t.id }, create: { ...t, sortOrder: i }, update: { ...t, sortOrder: i } })),
  ]);
}

export async function getCatalogue(prisma: PrismaClient) {
  const [products, osTemplates] = await Promise.all([
    prisma.product.findMany({ where: { active: true }, orderBy: [{ kind: 'asc' }, { sortOrder: 'asc' }] }),
    prisma.osTemplate.findMany({ orderBy: { sortOrder: 'asc' } }),
  ]);
  const byKind = (kind: string) => products.filter((p) => p.kind === kind);
  return {
    serverPlans: byKind('server_plan').map(({ id, family, name, vcpu, ramMb, diskGb, monthlyUsdCents }) => ({ id, family, name, vcpu, ramMb, diskGb, monthlyUsdCents })),
    osTemplates: osTemplates.map(({ id, os, name }) => ({ id, os, name })),
    addons: byKind('addon').map(({ id, name, monthlyUsdCents, details }) => ({ id, name, monthlyUsdCents, ...(details as object) })),
    poolProducts: byKind('pool').map(({ id, name, details }) => ({ id, name, ...(details as object) })),
    hostingPlans: byKind('hosting_plan').map(({ id, name, monthlyUsdCents, details }) => ({ id, name, monthlyUsdCents, ...(details as object) })),
  };
}

/** Resolves a server plan and OS template for an order; 400 naming the field otherwise. */
export async function resolveServerOrder(prisma: PrismaClient, input: { productId: unknown; os: unknown; osTemplate: unknown }) {
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
