import { money, StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Link } from '../../router.tsx';
import { LinkedRows, RowLink } from '../../list-table.tsx';
import { shapeText } from './units.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const POOLS_QUERY = graphql(`{ pools(first: 100) { nodes {
  id label status productId monthlyUsdCents renewsAt
  quota { vcpu ramMb diskGb ips }
  usage { vcpu ramMb diskGb ips servers }
} } }`);
type PoolRow = ResultOf<typeof POOLS_QUERY>['pools']['nodes'][number];

/** "2 servers · 4 of 8 vCPU · 8 of 16 GB RAM": what the pool's servers hold, in one line. */
function usageText(p: PoolRow) {
  const { usage: u, quota: q } = p;
  const servers = u.servers === 1 ? '1 server' : `${u.servers} servers`;
  return `${servers} · ${u.vcpu} of ${q.vcpu} vCPU · ${u.ramMb / 1024} of ${q.ramMb / 1024} GB RAM · ${u.diskGb} of ${q.diskGb} GB disk · ${u.ips} of ${q.ips} IPv4`;
}

/** /pools: the account's capacity pools, refreshed live as servers inside them come and go. */
export function PoolList() {
  const state = useLive(POOLS_QUERY, ['pool.', 'server.']);
  return (
    <div>
      <div class="page-head">
        <h1>Capacity pools</h1>
        <Link href="/pools/new" class="button">
          Buy a pool
        </Link>
      </div>
      <p class="muted">
        A pool is a block of vCPU, RAM, disk and IPv4 addresses paid by the month; servers inside it cost nothing more.
      </p>
      <Section title="Your pools" testid="pool-list" state={state}>
        {(d) =>
          d.pools.nodes.length === 0 ? (
            <p class="muted">
              No capacity pools yet. <Link href="/pools/new">Buy a pool</Link>
            </p>
          ) : (
            // On a phone each pool is a card (style.css: table.stack).
            <table class="stack">
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Status</th>
                  <th>Resources</th>
                  <th class="num">Monthly</th>
                  <th>Usage</th>
                  <th>Renews</th>
                </tr>
              </thead>
              <LinkedRows>
                {d.pools.nodes.map((p) => (
                  <tr key={p.id} data-testid={`pool-${p.id}`}>
                    <td data-label="Label">
                      {/* One grid item on a phone's card: the name with its product under it. */}
                      <div>
                        <RowLink href={`/pools/${p.id}`}>{p.label}</RowLink>
                        <div class="small muted mono">{p.productId}</div>
                      </div>
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={p.status} />
                    </td>
                    <td data-label="Resources">{shapeText(p.quota)}</td>
                    <td data-label="Monthly" class="num">
                      {money(p.monthlyUsdCents)}
                    </td>
                    <td data-label="Usage">{usageText(p)}</td>
                    <td data-label="Renews">
                      <When at={p.renewsAt} />
                    </td>
                  </tr>
                ))}
              </LinkedRows>
            </table>
          )
        }
      </Section>
    </div>
  );
}
