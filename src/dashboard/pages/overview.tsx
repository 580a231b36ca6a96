import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { gql, onEvent } from '../api.ts';
import { Link } from '../router.tsx';

export const money = (cents: number, currency = 'USD') => `${(cents / 100).toLocaleString('en-US', { style: 'currency', currency })}`;

/**
 * A GraphQL read that re-runs whenever a live event whose type starts with one of `refreshOn`
 * arrives. A section whose API is not available yet shows so instead of failing the page.
 */
export function useLive<T>(query: string, refreshOn: string[], variables?: Record<string, unknown>, reloadKey = 0) {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let alive = true;
    const load = () =>
      gql<T>(query, variables).then(
        (data) => alive && setState({ data }),
        (err: Error) => alive && setState({ error: err.message }),
      );
    void load();
    const off = onEvent((e) => {
      if (refreshOn.some((p) => e.type.startsWith(p))) void load();
    });
    return () => {
      alive = false;
      off();
    };
  }, [query, JSON.stringify(variables), reloadKey]);
  return state;
}

function Section<T>(props: { title: string; testid: string; state: { data?: T; error?: string }; children: (data: T) => ComponentChildren }) {
  const { data, error } = props.state;
  return (
    <section class="card" data-testid={props.testid}>
      <h2>{props.title}</h2>
      {error ? <p class="muted">Not available: {error}</p> : data === undefined ? <p class="muted">Loading…</p> : props.children(data)}
    </section>
  );
}

const status = (s: string) => <span class={`status status-${s}`}>{s}</span>;

export function Overview() {
  const servers = useLive<{ servers: { data: any[] } }>('{ servers(limit: 100) { data { id label status productId vcpu ramMb diskGb ips { ip primary } } } }', ['server.']);
  const pools = useLive<{ pools: any[] }>('{ pools { id label status vcpu ram2gb disk100 ip16 monthlyUsdCents } }', ['pool.', 'server.']);
  const hosting = useLive<{ hostingAccounts: { data: any[] } }>('{ hostingAccounts(limit: 100) { data { id domain status productId } } }', ['hosting.']);
  const domains = useLive<{ domains: { data: any[] } }>('{ domains(limit: 100) { data { id domain status expires_at } } }', ['domain.', 'invoice.']);
  const wallet = useLive<{ wallet: { balance_usd_cents: number; currency: string } }>('{ wallet { balance_usd_cents currency } }', ['wallet.', 'invoice.']);
  const tickets = useLive<{ tickets: { data: any[] } }>('{ tickets(limit: 100) { data { id number subject status priority } } }', ['ticket.']);

  return (
    <div>
      <h1>Overview</h1>
      <div class="grid">
        <Section title="Servers" testid="servers" state={servers}>
          {(d) =>
            d.servers.data.length === 0 ? (
              <p class="muted">No servers.</p>
            ) : (
              <table>
                <thead>
                  <tr><th>Label</th><th>Status</th><th>Plan</th><th>Address</th></tr>
                </thead>
                <tbody>
                  {d.servers.data.map((s) => (
                    <tr key={s.id} data-testid={`server-${s.id}`}>
                      <td><Link href={`/servers/${s.id}`}>{s.label}</Link></td>
                      <td data-testid="server-status">{status(s.status)}</td>
                      <td>{s.vcpu} vCPU · {s.ramMb / 1024} GB</td>
                      <td class="mono">{s.ips.find((i: any) => i.primary)?.ip ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Section>
        <Section title="Wallet" testid="wallet" state={wallet}>
          {(d) => <p class="big">{money(d.wallet.balance_usd_cents, d.wallet.currency)}</p>}
        </Section>
        <Section title="Capacity pools" testid="pools" state={pools}>
          {(d) =>
            d.pools.length === 0 ? <p class="muted">No pools.</p> : (
              <ul class="plain">
                {d.pools.map((p) => (
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
