import { StatusBadge } from '../format.tsx';
import { Section, useLive } from '../live-query.tsx';
import { SERVERS_QUERY, ServerTable, type ServerRow } from './servers.tsx';

export const money = (cents: number, currency = 'USD') => `${(cents / 100).toLocaleString('en-US', { style: 'currency', currency })}`;

const status = (s: string) => <StatusBadge status={s} />;

export function Overview() {
  const servers = useLive<{ servers: { data: ServerRow[] } }>(SERVERS_QUERY, ['server.']);
  const pools = useLive<{ pools: { data: any[] } }>('{ pools(limit: 100) { data { id label status vcpu ram2gb disk100 ip16 monthlyUsdCents } } }', ['pool.', 'server.']);
  const hosting = useLive<{ hostingAccounts: { data: any[] } }>('{ hostingAccounts(limit: 100) { data { id domain status productId } } }', ['hosting.']);
  const domains = useLive<{ domains: { data: any[] } }>('{ domains(limit: 100) { data { id domain status expires_at } } }', ['domain.', 'invoice.']);
  const wallet = useLive<{ wallet: { balance_usd_cents: number; currency: string } }>('{ wallet { balance_usd_cents currency } }', ['wallet.', 'invoice.']);
  const tickets = useLive<{ tickets: { data: any[] } }>('{ tickets(limit: 100) { data { id number subject status priority } } }', ['ticket.']);

  return (
    <div>
      <h1>Overview</h1>
      <div class="grid">
        <Section title="Servers" testid="servers" state={servers}>
          {(d) => <ServerTable servers={d.servers.data} />}
        </Section>
        <Section title="Wallet" testid="wallet" state={wallet}>
          {(d) => <p class="big">{money(d.wallet.balance_usd_cents, d.wallet.currency)}</p>}
        </Section>
        <Section title="Capacity pools" testid="pools" state={pools}>
          {(d) =>
            d.pools.data.length === 0 ? <p class="muted">No pools.</p> : (
              <ul class="plain">
                {d.pools.data.map((p) => (
                  <li key={p.id}>{p.label} {status(p.status)} <span class="muted">{p.vcpu} vCPU · {p.ram2gb * 2} GB · {money(p.monthlyUsdCents)}/mo</span></li>
                ))}
              </ul>
            )
          }
        </Section>
        <Section title="Web hosting" testid="hosting" state={hosting}>
          {(d) =>
            d.hostingAccounts.data.length === 0 ? <p class="muted">No hosting accounts.</p> : (
              <ul class="plain">{d.hostingAccounts.data.map((h) => <li key={h.id}>{h.domain} {status(h.status)}</li>)}</ul>
            )
          }
        </Section>
        <Section title="Domains" testid="domains" state={domains}>
          {(d) =>
            d.domains.data.length === 0 ? <p class="muted">No domains.</p> : (
              <ul class="plain">{d.domains.data.map((x) => <li key={x.id}>{x.domain} {status(x.status)}</li>)}</ul>
            )
          }
        </Section>
        <Section title="Open tickets" testid="tickets" state={tickets}>
          {(d) => {
            const open = d.tickets.data.filter((t) => t.status !== 'closed');
            return open.length === 0 ? <p class="muted">No open tickets.</p> : (
              <ul class="plain">{open.map((t) => <li key={t.id}><span class="mono">{t.number}</span> {t.subject} {status(t.status)}</li>)}</ul>
            );
          }}
        </Section>
      </div>
    </div>
  );
}
