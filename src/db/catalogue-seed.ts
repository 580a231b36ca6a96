import type { PrismaClient, ProductKind } from '../generated/prisma/client.ts';

/**
 * The catalogue the simulated datacenter sells. Upserted at every start, so editing this
 * file is how prices and plans change in the embedded default; operators of a real
 * deployment manage the same rows in the database.
 */
export interface ProductSeed {
  id: string;
  kind: ProductKind;
  family: string;
  name: string;
  vcpu?: number;
  ramMb?: number;
  diskGb?: number;
  monthlyUsdCents: number;
  details?: Record<string, unknown>;
}

const plan = (family: string, vcpu: number, ramGb: number, diskGb: number, monthlyUsdCents: number): ProductSeed => ({
  id: `${family}-${vcpu}c-${ramGb}g-${diskGb}`,
  kind: 'server_plan',
  family,
  name: `${family === 'std' ? 'Standard' : 'CPU-optimised'} ${vcpu} vCPU / ${ramGb} GB / ${diskGb} GB`,
  vcpu,
  ramMb: ramGb * 1024,
  diskGb,
  monthlyUsdCents,
});

/**
 * Add-ons. `type`: only one add-on of a type may be active on a server (tiers of a type are
 * switched by DELETE then POST). `ips`: addresses routed to the server. `stock`: how many the
 * simulated datacenter has when it first starts (null: not limited); the provider keeps the
 * live count (ProviderStock).
 */
const addon = (
  id: string,
  name: string,
  monthlyUsdCents: number,
  details: { type: string; ips: number; stock: number | null; distinctSubnets?: boolean },
): ProductSeed => ({
  id,
  kind: 'addon',
  family: details.type,
  name,
  monthlyUsdCents,
  details,
});

/** Unit prices (cents per unit per month), slider bounds, and the datacenter's capacity for pools. */
const POOL_UNIT_PRICES = { vcpu: 400, ram2gb: 500, disk100: 300, ip16: 3200 };
const POOL_BOUNDS = {
  vcpu: { min: 2, max: 64 },
  ram2gb: { min: 1, max: 128 },
  disk100: { min: 1, max: 40 },
  ip16: { min: 0, max: 8 },
};
const pool = (id: string, name: string, capacity: Record<keyof typeof POOL_UNIT_PRICES, number>): ProductSeed => ({
  id,
  kind: 'pool',
  family: 'pool',
  name,
  monthlyUsdCents: 0,
  details: { unitPricesCents: POOL_UNIT_PRICES, bounds: POOL_BOUNDS, capacity },
});

/**
 * Web-hosting plans. Quotas are per hosting account; `phpVersions` are the PHP-FPM versions
 * a site may switch to (PUT /hosting/:id/php-version), `defaultPhpVersion` the one it starts on.
 */
const hostingPlan = (
  id: string,
  name: string,
  monthlyUsdCents: number,
  details: {
    diskQuotaMb: number;
    inodeQuota: number;
    bandwidthQuotaGb: number;
    databases: number;
    mailboxes: number;
    backupsKept: number;
    phpVersions: string[];
    defaultPhpVersion: string;
  },
): ProductSeed => ({
  id,
  kind: 'hosting_plan',
  family: 'hosting',
  name,
  monthlyUsdCents,
  diskGb: Math.round(details.diskQuotaMb / 1024),
  details,
});

export const PRODUCTS: ProductSeed[] = [
  plan('std', 1, 2, 50, 600),
  plan('std', 2, 4, 50, 1200),
  plan('std', 4, 8, 50, 2400),
  plan('std', 2, 4, 100, 1800),
  plan('std', 4, 8, 100, 3000),
  plan('std', 8, 16, 100, 5400),
  plan('cpu', 2, 4, 100, 3000),
  plan('cpu', 4, 8, 100, 5600),
  plan('cpu', 8, 16, 100, 10800),
  addon('addon-ipv4-1', '1 extra IPv4 address', 300, { type: 'extra_ip', ips: 1, stock: null }),
  addon('addon-ipv4-4', '4 extra IPv4 addresses', 1000, { type: 'extra_ip', ips: 4, stock: null }),
  addon('addon-block-24', '/24 block (256 IPv4 addresses)', 9900, { type: 'ip_block_24', ips: 256, stock: 2 }),
  addon('addon-seo-pack', 'SEO IP Pack (7 IPv4 addresses, each from a different /24)', 2900, {
    type: 'seo_ip_pack',
    ips: 7,
    stock: 3,
    distinctSubnets: true,
  }),
  addon('addon-backups-weekly', 'Backups, weekly (4 kept)', 200, { type: 'backups', ips: 0, stock: null }),
  addon('addon-backups-daily', 'Backups, daily (7 kept)', 500, { type: 'backups', ips: 0, stock: null }),
  pool('pool-fra1', 'Capacity pool, Frankfurt', { vcpu: 1024, ram2gb: 2048, disk100: 800, ip16: 256 }),
  hostingPlan('hosting-starter', 'Web hosting Starter', 299, {
    diskQuotaMb: 10_240,
    inodeQuota: 200_000,
    bandwidthQuotaGb: 100,
    databases: 2,
    mailboxes: 10,
    backupsKept: 5,
    phpVersions: ['8.1', '8.2', '8.3'],
    defaultPhpVersion: '8.3',
  }),
  hostingPlan('hosting-business', 'Web hosting Business', 799, {
    diskQuotaMb: 51_200,
    inodeQuota: 600_000,
    bandwidthQuotaGb: 1000,
    databases: 10,
    mailboxes: 100,
    backupsKept: 10,
    phpVersions: ['7.4', '8.0', '8.1', '8.2', '8.3', '8.4'],
    defaultPhpVersion: '8.3',
  }),
  pool('pool-ams2', 'Capacity pool, Amsterdam (small site)', { vcpu: 48, ram2gb: 96, disk100: 30, ip16: 8 }),
];

/** Server plan families: std (standard) and cpu (CPU-optimised). */
export const PLAN_FAMILIES = ['std', 'cpu'] as const;

export const OS_TEMPLATES = [
  { id: 'ubuntu-24.04', os: 'linux', name: 'Ubuntu 24.04 LTS' },
  { id: 'debian-12', os: 'linux', name: 'Debian 12' },
  { id: 'rocky-9', os: 'linux', name: 'Rocky Linux 9' },
  { id: 'windows-2022', os: 'windows', name: 'Windows Server 2022' },
];

/** The OS families of the templates (a server's `os`). */
export const OS_FAMILIES = [...new Set(OS_TEMPLATES.map((t) => t.os))];
/** The add-on types of the catalogue (one active add-on per type on a server). */
export const ADDON_TYPES = [
  ...new Set(PRODUCTS.flatMap((p) => (p.kind === 'addon' ? [(p.details as { type: string }).type] : []))),
];

/**
 * Brings the catalogue rows in line with the seed above: reads both tables and writes only the rows
 * that are missing or differ, so a normal start costs two reads and no writes.
 */
export async function seedCatalogue(prisma: PrismaClient): Promise<void> {
  const [products, templates] = await Promise.all([prisma.product.findMany(), prisma.osTemplate.findMany()]);
  const same = (row: object | undefined, want: Record<string, unknown>) =>
    row !== undefined &&
    Object.entries(want).every(([k, v]) => JSON.stringify((row as Record<string, unknown>)[k]) === JSON.stringify(v));
  const productRows = new Map(products.map((p) => [p.id, p]));
  const templateRows = new Map(templates.map((t) => [t.id, t]));
  const writes = [
    ...PRODUCTS.map((p, i) => ({
      ...p,
      vcpu: p.vcpu ?? 0,
      ramMb: p.ramMb ?? 0,
      diskGb: p.diskGb ?? 0,
      details: (p.details ?? {}) as object,
      sortOrder: i,
    }))
      .filter((data) => !same(productRows.get(data.id), data))
      .map((data) => prisma.product.upsert({ where: { id: data.id }, create: data, update: data })),
    ...OS_TEMPLATES.map((t, i) => ({ ...t, sortOrder: i }))
      .filter((data) => !same(templateRows.get(data.id), data))
      .map((data) => prisma.osTemplate.upsert({ where: { id: data.id }, create: data, update: data })),
  ];
  if (writes.length) await prisma.$transaction(writes);
}
