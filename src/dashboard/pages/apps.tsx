import { useEffect, useState } from 'preact/hooks';
import { dash } from '../api.ts';
import { ConfirmButton } from '../confirm.tsx';
import { When } from '../format.tsx';

interface Grant {
  id: string;
  client: { id: string; name: string };
  redirectHost: string | null;
  resource: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** Connected apps: the OAuth grants of the account. Revoking one kills its tokens at once. */
export function Apps() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const [error, setError] = useState('');
  // Why the list cannot be shown (a session from a sign-in link may not read apps): said where the list goes.
  const [listError, setListError] = useState('');
  const load = () =>
    dash<{ data: Grant[] }>('GET', '/apps').then(
      (r) => {
        setGrants(r.data);
        setListError('');
      },
      (e: Error) => setListError(e.message),
    );
  useEffect(() => void load(), []);
  // Revoking needs a recent password: dash() asks for it (sudo mode); a refusal is shown.
  const revoke = async (id: string) => {
    setError('');
    try {
      await dash('DELETE', `/apps/${id}`);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div>
      <h1>Connected apps</h1>
      <section class="card">
        {error && <p class="error">{error}</p>}
        <p class="muted">
          Programs you approved: with a device code (for example the <span class="mono">svc</span> command line), or on
          a consent page (MCP hosts such as Claude, VS Code or Cursor).
        </p>
        {listError ? (
          <p class="error" role="alert" data-testid="apps-refused">
            {listError}
          </p>
        ) : !grants ? (
          <p class="muted">Loading…</p>
        ) : grants.length === 0 ? (
          <p class="muted">No connected apps.</p>
        ) : (
          <div class="table-wrap">
            <table data-testid="apps">
              <thead>
                <tr>
                  <th>App</th>
                  <th>Redirects to</th>
                  <th>Scopes</th>
                  <th>Connected</th>
                  <th>Last used</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {grants.map((g) => (
                  <tr key={g.id} data-testid={`app-${g.client.id}`}>
                    <td>
                      {g.client.name} <span class="muted mono">{g.client.id}</span>
                    </td>
                    <td class="mono small">{g.redirectHost ?? '—'}</td>
                    <td class="small">
                      {g.scopes.join(' ')}
                      {g.resource && (
                        <div class="muted">
                          for <span class="mono">{g.resource}</span>
                        </div>
                      )}
                    </td>
                    <td>
                      <When at={g.createdAt} />
                    </td>
                    <td>
                      <When at={g.lastUsedAt} />
                    </td>
                    <td>
                      <ConfirmButton
                        label="Revoke"
                        question={`Disconnect ${g.client.name}?`}
                        detail="Its access and refresh tokens stop working at once."
                        confirmLabel="Disconnect app"
                        onConfirm={() => revoke(g.id)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
