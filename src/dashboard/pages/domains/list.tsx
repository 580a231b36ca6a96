import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Link } from '../../router.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** A domain as its list and its page read it. */
export const DOMAIN_ROW = graphql(`fragment DomainRow on Domain {
  id domain status autoRenew transferLock whoisPrivacy nameservers periodYears registeredAt expiresAt createdAt
}`);
export type DomainRow = ResultOf<typeof DOMAIN_ROW>;

/** The API's largest page (the query's `first`); an account with more domains sees a note, not a silent cut. */
const PAGE = 1000;
const DOMAINS_QUERY = graphql('{ domains(first: 1000) { nodes { ...DomainRow } pageInfo { hasNextPage } } }', [
  DOMAIN_ROW,
]);

/** /domains: the registered domains, when each expires and whether it renews by itself. */
export function DomainList() {
  const state = useLive(DOMAINS_QUERY, ['domain.', 'invoice.']);
  return (
    <div>
      <h1>Domains</h1>
      <Section title="Registered domains" testid="domains" state={state}>
        {({ domains: { nodes, pageInfo } }) => (
          <>
            <ListTable
              rows={nodes}
              empty={
                <>
                  No domains yet. The provider registers domains for you: <Link href="/tickets/new">ask support</Link>{' '}
                  for one.
                </>
              }
              columns={['Domain', 'Status', 'Expires', 'Auto-renew']}
              stack
            >
              {(d) => (
                <tr key={d.id} data-testid={`domain-${d.domain}`}>
                  <td data-label="Domain">
                    <RowLink href={`/domains/${d.id}`}>{d.domain}</RowLink>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={d.status} />
                  </td>
                  <td data-label="Expires">
                    <When at={d.expiresAt} none="once registered" />
                  </td>
                  <td data-label="Auto-renew">
                    <StatusBadge status={d.autoRenew ? 'on' : 'off'} />
                  </td>
                </tr>
              )}
            </ListTable>
            {pageInfo.hasNextPage && <p class="muted">Only the newest {PAGE} domains are listed.</p>}
          </>
        )}
      </Section>
    </div>
  );
}
