import type { ProductKind } from '../../generated/prisma/client.ts';

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
];

export const OS_TEMPLATES = [
  { id: 'ubuntu-24.04', os: 'linux', name: 'Ubuntu 24.04 LTS' },
  { id: 'debian-12', os: 'linux', name: 'Debian 12' },
  { id: 'rocky-9', os: 'linux', name: 'Rocky Linux 9' },
  { id: 'windows-2022', os: 'windows', name: 'Windows Server 2022' },
];
