import type { TenantDb } from '../../db/tenant.ts';
import { readFirstPoolDetails } from './pool-read.ts';
import { resolved, unitsOf } from './service.ts';

/** What a pool holds against its quota, per resource: vCPUs, MB of RAM, GB of disk, IPv4 addresses. */
export interface PoolQuotaUse {
  id: string;
  label: string;
  status: string;
  servers: number;
  used: { vcpu: number; ramMb: number; diskGb: number; ips: number };
  quota: { vcpu: number; ramMb: number; diskGb: number; ips: number };
}

/**
 * The quota use of the account's first `take` visible pools, oldest first: what their servers
 * hold (a powered-off or suspended server still holds its allocation) against what the pool
 * sells. Read in one statement, the pool detail's (pool-read.ts).
 */
export async function poolQuotaUse(db: TenantDb, take: number): Promise<PoolQuotaUse[]> {
  return (await readFirstPoolDetails(db, take)).map(({ pool, usage }) => ({
    id: pool.id,
    label: pool.label,
    status: pool.status,
    servers: usage.servers,
    used: { vcpu: usage.vcpu, ramMb: usage.ramMb, diskGb: usage.diskGb, ips: usage.ips },
    quota: resolved(unitsOf(pool)),
  }));
}
