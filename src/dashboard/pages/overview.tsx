import { money, StatusBadge } from '../format.tsx';
import { Link } from '../router.tsx';
import { LinkedList, RowLink } from '../list-table.tsx';
import { AREAS } from '../areas.ts';
import { Section, useLive } from '../live-query.tsx';
import { SERVER_ROW, ServerTable } from './servers.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

const OVERVIEW_QUERY = graphql(
  `{ account {
  servers(first: 100) { nodes { ...ServerRow } }
  pools(first: 100) { nodes { id label status vcpu ram2gb disk100 ip16 monthlyUsdCents } }
  hostingAccounts(first: 100) { nodes { id domain status productId } }
  domains(first: 100) { nodes { id domain status expiresAt } }
  wallet { balanceUsdCents currency }
  tickets(first: 100) { nodes { id number subject status priority } }
} }`,
  [SERVER_ROW],
);

type Overview = ResultOf<typeof OVERVIEW_QUERY>['account'];

const status = (s: string) => <StatusBadge status={s} />;

export function Overview() {
  // One request for the whole page: the account and everything it reaches (docs/REFERENCE.md: The graph).
  const page = useLive(OVERVIEW_QUERY, ['server.', 'pool.', 'hosting.', 'domain.', 'invoice.', 'wallet.', 'ticket.']);
  const part = <K extends keyof Overview>(k: K) => ({
    error: page.error,
    data: page.data && ({ [k]: page.data.account[k] } as Pick<Overview, K>),
  });
  const servers = part('servers');
  const pools = part('pools');
  const hosting = part('hostingAccounts');
  const domains = part('domains');
  const wallet = part('wallet');
  const tickets = part('tickets');

  return (
    <div>
      <h1>Overview</h1>
      <div class="grid">
        <Section title="Servers" href="/servers" testid="servers" state={servers}>
          {(d) => <ServerTable servers={d.servers!.nodes} />}
        </Section>
        <Section title="Wallet" href="/billing" testid="wallet" state={wallet}>
          {(d) => <p class="big">{money(d.wallet!.balanceUsdCents, d.wallet!.currency)}</p>}
        </Section>
        <section class="card" data-testid="areas">
          <h2>Manage</h2>
          <ul class="plain">
            {AREAS.map(({ href, label, what }) => (
              <li key={href}>
                <Link href={href}>{label}</Link> <span class="muted small">— {what}</span>
              </li>
            ))}
          </ul>
        </section>
        <Section title="Capacity pools" href="/pools" testid="pools" state={pools}>
          {(d) =>
            d.pools!.nodes.length === 0 ? (
              <p class="muted">No pools.</p>
            ) : (
              <LinkedList class="plain">
                {d.pools!.nodes.map((p) => (
                  <li key={p.id}>
                    <RowLink href={`/pools/${p.id}`}>{p.label}</RowLink> {status(p.status)}{' '}
                    <span class="muted">
                      {p.vcpu} vCPU · {p.ram2gb * 2} GB · {money(p.monthlyUsdCents)}/mo
                    </span>
                  </li>
                ))}
              </LinkedList>
            )
          }
        </Section>
        <Section title="Web hosting" href="/hosting" testid="hosting" state={hosting}>
          {(d) =>
            d.hostingAccounts!.nodes.length === 0 ? (
              <p class="muted">No hosting accounts.</p>
            ) : (
              <LinkedList class="plain">
                {d.hostingAccounts!.nodes.map((h) => (
                  <li key={h.id}>
                    <RowLink href={`/hosting/${h.id}`}>{h.domain}</RowLink> {status(h.status)}
                  </li>
                ))}
              </LinkedList>
            )
          }
        </Section>
        <Section title="Domains" href="/domains" testid="domains" state={domains}>
          {(d) =>
            d.domains!.nodes.length === 0 ? (
              <p class="muted">No domains.</p>
            ) : (
              <LinkedList class="plain">
                {d.domains!.nodes.map((x) => (
                  <li key={x.id}>
                    <RowLink href={`/domains/${x.id}`}>{x.domain}</RowLink> {status(x.status)}
                  </li>
                ))}
              </LinkedList>
            )
          }
        </Section>
        <Section title="Open tickets" href="/tickets" testid="tickets" state={tickets}>
          {(d) => {
            const open = d.tickets!.nodes.filter((t) => t.status !== 'closed');
            return open.length === 0 ? (
              <p class="muted">No open tickets.</p>
            ) : (
              <LinkedList class="plain">
                {open.map((t) => (
                  <li key={t.id}>
                    <span class="mono">{t.number}</span> <RowLink href={`/tickets/${t.id}`}>{t.subject}</RowLink>{' '}
                    {status(t.status)}
                  </li>
                ))}
              </LinkedList>
            );
          }}
        </Section>
      </div>
    </div>
  );
}
