import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Link } from '../../router.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';

export interface DomainRow {
  id: string;
  domain: string;
  status: string;
  autoRenew: boolean;
  transferLock: boolean;
  whoisPrivacy: boolean;
  nameservers: string[];
  periodYears: number;
  registeredAt: string | null;
  expiresAt: string | null;
  createdAt: string;
}

export const DOMAIN_FIELDS =
  'id domain status autoRenew transferLock whoisPrivacy nameservers periodYears registeredAt expiresAt createdAt';

/** The API's largest page; an account with more domains sees a note, not a silent cut. */
const PAGE = 1000;

/** /domains: the registered domains, when each expires and whether it renews by itself. */
export function DomainList() {
  const state = useLive<{ domains: { nodes: DomainRow[]; pageInfo: { hasNextPage: boolean } } }>(
    `{ domains(first: ${PAGE}) { nodes { ${DOMAIN_FIELDS} } pageInfo { hasNextPage } } }`,
    ['domain.', 'invoice.'],
  );
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
