import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Link } from '../../router.tsx';

interface HostingRow {
  id: string;
  domain: string;
  status: string;
  productId: string;
  ip: string;
  createdAt: string;
}

/** /hosting: the account's web hosting accounts; each domain opens its control panel. */
export function HostingList() {
  const state = useLive<{ hostingAccounts: { nodes: HostingRow[] } }>(
    '{ hostingAccounts(first: 100) { nodes { id domain status productId ip createdAt } } }',
    ['hosting.'],
  );
  return (
    <div>
      <h1>Web hosting</h1>
      <Section title="Hosting accounts" testid="hosting-accounts" state={state}>
        {({ hostingAccounts: { nodes } }) =>
          nodes.length === 0 ? (
            <p class="muted">No hosting accounts yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Domain</th>
                    <th>Status</th>
                    <th>Plan</th>
                    <th>Address</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {nodes.map((h) => (
                    <tr key={h.id} data-testid={`hosting-${h.id}`}>
                      <td>
                        <Link href={`/hosting/${h.id}`}>{h.domain}</Link>
                      </td>
                      <td>
                        <StatusBadge status={h.status} />
                      </td>
                      <td class="mono small">{h.productId}</td>
                      <td class="mono">{h.ip}</td>
                      <td>
                        <When at={h.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Section>
    </div>
  );
}
