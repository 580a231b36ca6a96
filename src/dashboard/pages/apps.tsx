import { useEffect, useState } from 'preact/hooks';
import { dash } from '../api.ts';

interface Grant {
  id: string;
  client: { id: string; name: string };
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** Connected apps: the OAuth grants of the account. Revoking one kills its tokens at once. */
export function Apps() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const load = () => dash<{ data: Grant[] }>('GET', '/apps').then((r) => setGrants(r.data));
  useEffect(() => void load(), []);
  const revoke = async (id: string) => {
    if (!confirm('Disconnect this app? Its access and refresh tokens stop working at once.')) return;
    await dash('DELETE', `/apps/${id}`);
    await load();
  };
  return (
    <div>
      <h1>Connected apps</h1>
      <section class="card">
        <p class="muted">Programs you approved with a device code (for example the <span class="mono">svc</span> command line).</p>
        {!grants ? <p class="muted">Loading…</p> : grants.length === 0 ? <p class="muted">No connected apps.</p> : (
          <table data-testid="apps">
            <thead><tr><th>App</th><th>Scopes</th><th>Connected</th><th>Last refreshed</th><th></th></tr></thead>
            <tbody>
              {grants.map((g) => (
                <tr key={g.id} data-testid={`app-${g.client.id}`}>
                  <td>{g.client.name} <span class="muted mono">{g.client.id}</span></td>
                  <td class="small">{g.scopes.join(' ')}</td>
                  <td>{new Date(g.createdAt).toLocaleString()}</td>
                  <td>{g.lastUsedAt ? new Date(g.lastUsedAt).toLocaleString() : '—'}</td>
                  <td><button type="button" class="danger" onClick={() => revoke(g.id)}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
