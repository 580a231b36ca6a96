import { defineArea, int, str, strOf } from '../../core/area.ts';

/** Capacity pools (docs/DESIGN.md: Areas declare themselves once). */
export const poolsArea = defineArea({
  name: 'pools',
  api: {
    tag: 'Capacity pools: a block of vCPU, RAM, disk and IPv4 bought by the month, inside which servers are free. Quotes price a selection or a resize without charging; buying debits the first month from the wallet, growth is charged prorated. Changes fire `pool.*` events (servers inside a pool fire their own `server.*` events).',
    toolset: { offered: 'by default', order: 2 },
    toolPrefixes: ['pool', 'pools'],
    borrowedScopes: ['servers:read', 'servers:write', 'servers:destroy'],
  },
  // Pools are read with servers:read, so that is the scope that sees their events.
  events: {
    order: 6,
    kinds: {
      'pool.created': {
        scope: 'servers:read',
        fields: {
          poolId: str,
          label: str,
          productId: strOf('pool-fra1'),
          status: strOf('active'),
          vcpu: int,
          ram2gb: int,
          disk100: int,
          ip16: int,
          monthlyUsdCents: int,
        },
      },
      'pool.resized': {
        scope: 'servers:read',
        fields: {
          poolId: str,
          vcpu: int,
          ram2gb: int,
          disk100: int,
          ip16: int,
          monthlyUsdCents: int,
          chargedUsdCents: int,
        },
      },
      'pool.ips.changed': { scope: 'servers:read', fields: { poolId: str, assigned: int, freed: int } },
      'pool.suspended': { scope: 'servers:read', fields: { poolId: str, reason: str } },
      'pool.deleted': { scope: 'servers:read', fields: { poolId: str } },
    },
    // A suspended pool active again (its overdue renewal paid). Its servers announce their own moves.
    liveChanges: {
      'pool.status.changed': { scope: 'servers:read', fields: { poolId: str, status: strOf('active') } },
    },
  },
  idPrefixes: { pool: 'pool' },
  runtime: { renewalPurpose: 'pool_renewal' },
});
