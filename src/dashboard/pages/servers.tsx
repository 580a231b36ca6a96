import { useEffect, useState } from 'preact/hooks';
import { Link } from '../router.tsx';
import { ListTable, RowLink } from '../list-table.tsx';
import { StatusBadge, When } from '../format.tsx';
import { Section, useLive } from '../live-query.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

/** A row of the servers table (the overview's and /servers'). */
export const SERVER_ROW = graphql(
  'fragment ServerRow on Server { id label status productId vcpu ramMb diskGb createdAt ips { ip primary } }',
);
type ServerRow = ResultOf<typeof SERVER_ROW>;

/** The servers table of the overview and of /servers: label (links to the server page), status, plan, address; a card per server on a phone. */
export function ServerTable(props: { servers: ServerRow[] }) {
  return (
    <ListTable
      rows={props.servers}
      empty="No servers."
      columns={['Label', 'Status', 'Plan', 'Address', 'Created']}
      stack
    >
      {(s) => (
        <tr key={s.id} data-testid={`server-${s.id}`}>
          <td data-label="Label">
            <RowLink href={`/servers/${s.id}`}>{s.label}</RowLink>
          </td>
          <td data-label="Status" data-testid="server-status">
            <StatusBadge status={s.status} />
          </td>
          <td data-label="Plan">
            {/* One child: on a phone the cell is a label-and-value grid. */}
            <div>
              {s.vcpu} vCPU · {s.ramMb / 1024} GB <div class="small muted mono">{s.productId}</div>
            </div>
          </td>
          <td data-label="Address" class="mono">
            {s.ips.find((i) => i.primary)?.ip ?? '—'}
          </td>
          <td data-label="Created">
            <When at={s.createdAt} />
          </td>
        </tr>
      )}
    </ListTable>
  );
}

// The account's connection: the top-level `servers` list has no search or status filter.
const FILTERED_QUERY = graphql(
  `query($search: String, $status: String) { account {
  servers(first: 100, search: $search, status: $status) { nodes { ...ServerRow } totalCount }
} }`,
  [SERVER_ROW],
);

/** What the status filter offers: every state a customer sees a server in. */
const STATES = ['provisioning', 'running', 'stopped', 'rebooting', 'restoring', 'reinstalling', 'suspended'];

/** /servers: the account's servers, searched by label and filtered by status, refreshed live. */
export function Servers() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  // The query follows the search box a moment behind, not at every keystroke.
  const [query, setQuery] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(t);
  }, [search]);
  const servers = useLive(FILTERED_QUERY, ['server.'], {
    search: query || null,
    status: status || null,
  });
  const filtered = Boolean(query || status);
  const what = [query && `“${query}”`, status && `status ${status}`].filter(Boolean).join(' and ');
  return (
    <div>
      <div class="page-head">
        <h1>Servers</h1>
        <Link href="/servers/new" class="button">
          Order a server
        </Link>
      </div>
      <search class="filters">
        <label>
          Search by label
          <input type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">Any status</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </search>
      <Section title="All servers" testid="server-list" state={servers}>
        {(d) =>
          d.account.servers!.nodes.length > 0 ? (
            <ServerTable servers={d.account.servers!.nodes} />
          ) : filtered ? (
            <p class="muted">No servers match {what}.</p>
          ) : (
            <p class="muted">
              No servers yet. <Link href="/servers/new">Order a server</Link>
            </p>
          )
        }
      </Section>
    </div>
  );
}
