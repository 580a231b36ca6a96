import { graphql, type ResultOf } from '../../graphql.ts';
import { BOUNDS } from './units.tsx';

// One read for the whole page: the pool with its servers, its addresses, and what a server in it can be.
export const POOL_QUERY = graphql(
  `query($id: ID!) {
  pool(id: $id) {
    id label status productId vcpu ram2gb disk100 ip16 monthlyUsdCents renewsAt createdAt
    quota { vcpu ramMb diskGb ips } usage { vcpu ramMb diskGb ips servers }
    bounds { ...Bounds }
    members { id label status productId vcpu ramMb diskGb osTemplate ips }
  }
  poolIps(id: $id) { nodes { ip ptr assignedTo } }
  serverCatalogue { plans { productId name vcpu ramMb diskGb } osTemplates { id os name } }
}`,
  [BOUNDS],
);

/** What the pool page reads, shared by its sections. */
type PoolPage = ResultOf<typeof POOL_QUERY>;
export type PoolMember = PoolPage['pool']['members'][number];
export type Resources = PoolPage['pool']['quota'];
export type PoolAddress = PoolPage['poolIps']['nodes'][number];
export type Plan = PoolPage['serverCatalogue']['plans'][number];
export type Template = PoolPage['serverCatalogue']['osTemplates'][number];
