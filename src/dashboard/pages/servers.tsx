import { Link } from '../router.tsx';
import { StatusBadge, When } from '../format.tsx';
import { Section, useLive } from '../live-query.tsx';

export const SERVER_ROW_FIELDS = 'id label status productId vcpu ramMb diskGb createdAt ips { ip primary }';
export const SERVERS_QUERY = `{ servers(first: 100) { nodes { ${SERVER_ROW_FIELDS} } } }`;

export interface ServerRow {
  id: string;
  label: string;
  status: string;
  productId: string;
  vcpu: number;
  ramMb: number;
  diskGb: number;
  createdAt: string;
  ips: { ip: string; primary: boolean }[];
}

/** The servers table of the overview and of /servers: label (links to the server page), status, plan, address. */
export function ServerTable(props: { servers: ServerRow[] }) {
  if (props.servers.length === 0) return <p class="muted">No servers.</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Label</th>
            <th>Status</th>
            <th>Plan</th>
            <th>Address</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.servers.map((s) => (
            <tr key={s.id} data-testid={`server-${s.id}`}>
              <td>
                <Link href={`/servers/${s.id}`}>{s.label}</Link>
              </td>
              <td data-testid="server-status">
                <StatusBadge status={s.status} />
              </td>
              <td>
                {s.vcpu} vCPU · {s.ramMb / 1024} GB <div class="small muted mono">{s.productId}</div>
              </td>
              <td class="mono">{s.ips.find((i) => i.primary)?.ip ?? '—'}</td>
              <td>
                <When at={s.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** /servers: every server of the account, refreshed live. */
export function Servers() {
  const servers = useLive<{ servers: { nodes: ServerRow[] } }>(SERVERS_QUERY, ['server.']);
  return (
    <div>
      <h1>Servers</h1>
      <Section title="All servers" testid="server-list" state={servers}>
        {(d) => <ServerTable servers={d.servers.nodes} />}
      </Section>
    </div>
  );
}
