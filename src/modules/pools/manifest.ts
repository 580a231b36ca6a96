import { defineArea } from '../../core/area.ts';

/** Capacity pools (docs/DESIGN.md: Areas declare themselves once). */
export const poolsArea = defineArea({
  name: 'pools',
  api: {
    tag: 'Capacity pools: a block of vCPU, RAM, disk and IPv4 bought by the month, inside which servers are free. Quotes price a selection or a resize without charging; buying debits the first month from the wallet, growth is charged prorated.',
    toolset: { offered: 'by default', order: 2 },
    toolPrefixes: ['pool', 'pools'],
    borrowedScopes: ['servers:read', 'servers:write', 'servers:destroy'],
  },
  idPrefixes: { pool: 'pool' },
  runtime: { renewalPurpose: 'pool_renewal' },
});
