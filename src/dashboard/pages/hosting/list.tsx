import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';
import { graphql } from '../../graphql.ts';

const HOSTING_QUERY = graphql('{ hostingAccounts(first: 100) { nodes { id domain status productId ip createdAt } } }');

/** /hosting: the account's web hosting accounts; each domain opens its control panel. */
export function HostingList() {
  const state = useLive(HOSTING_QUERY, ['hosting.']);
  return (
    <div>
      <h1>Web hosting</h1>
      <Section title="Hosting accounts" testid="hosting-accounts" state={state}>
        {({ hostingAccounts: { nodes } }) => (
          <ListTable
            rows={nodes}
            empty="No hosting accounts yet."
            columns={['Domain', 'Status', 'Plan', 'Address', 'Created']}
            stack
          >
            {(h) => (
              <tr key={h.id} data-testid={`hosting-${h.id}`}>
                <td data-label="Domain" class="wrap-anywhere">
                  <RowLink href={`/hosting/${h.id}`}>{h.domain}</RowLink>
                </td>
                <td data-label="Status">
                  <StatusBadge status={h.status} />
                </td>
                <td data-label="Plan" class="mono small">
                  {h.productId}
                </td>
                <td data-label="Address" class="mono">
                  {h.ip}
                </td>
                <td data-label="Created">
                  <When at={h.createdAt} />
                </td>
              </tr>
            )}
          </ListTable>
        )}
      </Section>
    </div>
  );
}
