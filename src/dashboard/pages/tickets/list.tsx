import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Link } from '../../router.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';
import { graphql } from '../../graphql.ts';

/** The API's page the list reads (the query's `first`); an account with more tickets sees a note. */
const PAGE = 100;
const TICKETS_QUERY = graphql(
  '{ tickets(first: 100) { nodes { id number subject status priority lastReplyAt } pageInfo { hasNextPage } } }',
);

/** /tickets: the account's support tickets, newest first, with the way to open one. */
export function TicketList() {
  const state = useLive(TICKETS_QUERY, ['ticket.']);
  return (
    <div>
      <div class="page-head">
        <h1>Support</h1>
        <Link href="/tickets/new" class="button">
          New ticket
        </Link>
      </div>
      <Section title="Tickets" testid="tickets" state={state}>
        {({ tickets: { nodes, pageInfo } }) => (
          <>
            <ListTable
              rows={nodes}
              empty={
                <>
                  No tickets yet. Ask support anything with <Link href="/tickets/new">a new ticket</Link>.
                </>
              }
              columns={['Number', 'Subject', 'Status', 'Priority', 'Last update']}
              stack
            >
              {(t) => (
                <tr key={t.id} data-testid={`ticket-${t.number}`}>
                  <td data-label="Number">
                    <RowLink href={`/tickets/${t.id}`}>{t.number}</RowLink>
                  </td>
                  <td data-label="Subject" class="wrap">
                    {t.subject}
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={t.status} />
                  </td>
                  <td data-label="Priority">{t.priority}</td>
                  <td data-label="Last update">
                    <When at={t.lastReplyAt} />
                  </td>
                </tr>
              )}
            </ListTable>
            {pageInfo.hasNextPage && <p class="muted">Only the newest {PAGE} tickets are listed.</p>}
          </>
        )}
      </Section>
    </div>
  );
}
