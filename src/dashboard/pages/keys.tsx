import { useEffect, useState } from 'preact/hooks';
import { SCOPES, DEFAULT_SCOPES, type Scope } from '../../scopes.ts';
import { dash } from '../api.ts';
import { ConfirmButton } from '../confirm.tsx';
import { When } from '../format.tsx';

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export function ScopePicker(props: {
  scopes: readonly string[];
  chosen: Set<string>;
  onChange(next: Set<string>): void;
}) {
  return (
    <div class="scopes">
      {props.scopes.map((s) => (
        <label key={s} class="check" title={SCOPES[s as Scope]}>
          <input
            type="checkbox"
            name="scope"
            value={s}
            checked={props.chosen.has(s)}
            onChange={(e) => {
              const next = new Set(props.chosen);
              if (e.currentTarget.checked) next.add(s);
              else next.delete(s);
              props.onChange(next);
            }}
          />
          <span class="mono">{s}</span>
        </label>
      ))}
    </div>
  );
}

export function Keys() {
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set(DEFAULT_SCOPES));
  const [minted, setMinted] = useState<{ key: string; name: string } | null>(null);
  const [error, setError] = useState('');

  const load = () =>
    dash<{ data: KeyRow[] }>('GET', '/keys').then(
      (r) => setKeys(r.data),
      (e: Error) => setError(e.message),
    );
  useEffect(() => void load(), []);

  const mint = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const k = await dash<{ key: string; name: string }>('POST', '/keys', {
        name: name || undefined,
        scopes: [...chosen],
      });
      setMinted(k);
      setName('');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  // Minting and revoking need a recent password: dash() asks for it (sudo mode); a refusal is shown.
  const revoke = async (id: string) => {
    setError('');
    try {
      await dash('DELETE', `/keys/${id}`);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div>
      <h1>API keys</h1>
      <form class="card" onSubmit={mint} method="post" action="/dashboard/api/keys">
        <h2>Mint a key</h2>
        <label>
          Name
          <input
            name="name"
            maxLength={100}
            placeholder="Dashboard key"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <ScopePicker scopes={Object.keys(SCOPES)} chosen={chosen} onChange={setChosen} />
        <button type="submit" disabled={chosen.size === 0}>
          Mint key
        </button>
        {error && <p class="error">{error}</p>}
      </form>
      {minted && (
        <section class="card notice" data-testid="minted-key">
          <h2>Key “{minted.name}” — copy it now</h2>
          <p>It is shown this once; only its hash is stored.</p>
          <code class="secret" data-testid="minted-key-value">
            {minted.key}
          </code>
          <button type="button" class="link" onClick={() => setMinted(null)}>
            Done
          </button>
        </section>
      )}
      <section class="card">
        <h2>Active keys</h2>
        {!keys ? (
          <p class="muted">Loading…</p>
        ) : keys.length === 0 ? (
          <p class="muted">No keys.</p>
        ) : (
          // On a phone each key is a card (style.css: table.stack); the table stays the one markup.
          <table class="stack" data-testid="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-testid={`key-${k.prefix}`}>
                  <td data-label="Name" class="wrap">
                    {k.name}
                  </td>
                  <td data-label="Prefix" class="mono">
                    {k.prefix}…
                  </td>
                  <td data-label="Scopes" class="small wrap">
                    {k.scopes.join(' ')}
                  </td>
                  <td data-label="Created">
                    <When at={k.createdAt} />
                  </td>
                  <td data-label="Last used" data-testid="key-last-used">
                    <When at={k.lastUsedAt} none="never" />
                  </td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke “${k.name}”?`}
                      detail="Programs using this key stop working at once. This cannot be undone."
                      confirmLabel="Revoke key"
                      onConfirm={() => revoke(k.id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
