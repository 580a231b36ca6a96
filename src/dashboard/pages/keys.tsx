import { useEffect, useState } from 'preact/hooks';
import { SCOPES, type Scope } from '../../scopes.ts';
import { dash, HttpError } from '../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../confirm.tsx';
import { SecretWithCopy } from '../copy.tsx';
import { When } from '../format.tsx';
import { ListTable } from '../list-table.tsx';

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

/** A date picked for the expiry ("2027-01-15") as the instant the key stops working: the end of that day, UTC. */
const endOfDayUtc = (date: string) => `${date}T23:59:59.999Z`;

/** The expiry choices: never, a number of days from today, or a date typed in the console's one date format. */
const EXPIRY_CHOICES = [
  ['never', 'Never'],
  ['7', 'In 7 days'],
  ['30', 'In 30 days'],
  ['90', 'In 90 days'],
  ['365', 'In a year'],
  ['date', 'On a date…'],
] as const;
type ExpiryChoice = (typeof EXPIRY_CHOICES)[number][0];

/** "2027-01-15" for the day `days` from now, UTC. */
const dayIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The day a choice ends on (YYYY-MM-DD), null for never; undefined when a typed date is not a real one. */
function expiryDay(choice: ExpiryChoice, typed: string): string | null | undefined {
  if (choice === 'never') return null;
  if (choice !== 'date') return dayIn(Number(choice));
  const day = typed.trim();
  const parsed = new Date(`${day}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(day)
    ? day
    : undefined;
}

/** /keys. A session opened from a sign-in link cannot list or mint keys: the page says so and how to. */
export function Keys(props: { passwordSignIn: boolean }) {
  if (!props.passwordSignIn)
    return (
      <div>
        <h1>API keys</h1>
        <section class="card">
          <p data-testid="keys-refused">
            This session was opened from a server's sign-in link, which cannot list or mint keys:{' '}
            <a href="/sign-in?next=/keys">sign in with your password</a> to manage them.
          </p>
        </section>
      </div>
    );
  return <KeysOfAccount />;
}

function KeysOfAccount() {
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<ExpiryChoice>('never');
  const [expires, setExpires] = useState('');
  // None ticked: a key gets the scopes its program needs, chosen one by one.
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [minted, setMinted] = useState<{ key: string; name: string; expiresAt: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  // A refusal beside the field it names (name, expiresAt, scopes), else under the form.
  const [refusal, setRefusal] = useState<{ field?: string; message: string } | null>(null);
  const [error, setError] = useState('');
  // Why the list cannot be shown (a session from a sign-in link may not read keys): said where the list goes.
  const [listError, setListError] = useState('');

  const load = () =>
    dash<{ data: KeyRow[] }>('GET', '/keys').then(
      (r) => {
        setKeys(r.data);
        setListError('');
      },
      (e: Error) => setListError(e.message),
    );
  useEffect(() => void load(), []);

  const mint = async (e: Event) => {
    e.preventDefault();
    setError('');
    setRefusal(null);
    const day = expiryDay(expiry, expires);
    if (day === undefined)
      return setRefusal({ field: 'expiresAt', message: 'Type the date as YYYY-MM-DD, such as 2027-01-31.' });
    setBusy(true);
    try {
      const k = await dash<{ key: string; name: string; expiresAt: string | null }>('POST', '/keys', {
        name: name || undefined,
        scopes: [...chosen],
        expiresAt: day ? endOfDayUtc(day) : null,
      });
      setMinted(k);
      setName('');
      setExpiry('never');
      setExpires('');
      await load();
    } catch (err) {
      setRefusal({ field: err instanceof HttpError ? err.field : undefined, message: (err as Error).message });
    } finally {
      setBusy(false);
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
  const noScope = chosen.size === 0 ? 'Choose at least one scope.' : null;
  const fieldError = (field: string) =>
    refusal?.field === field ? (
      <span id={`key-${field}-error`} class="error field-error">
        {refusal.message}
      </span>
    ) : null;
  const invalid = (field: string) =>
    refusal?.field === field ? { 'aria-invalid': 'true' as const, 'aria-describedby': `key-${field}-error` } : {};

  return (
    <div>
      <h1>API keys</h1>
      <form class="card" onSubmit={mint} method="post" action="/dashboard/api/keys" aria-busy={busy} noValidate>
        <h2>Mint a key</h2>
        <div class="fields">
          <label>
            Name
            <input
              name="name"
              maxLength={100}
              placeholder="Dashboard key"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              {...invalid('name')}
            />
            {fieldError('name')}
          </label>
          <label>
            Expires
            <select
              name="expiry"
              value={expiry}
              onChange={(e) => setExpiry(e.currentTarget.value as ExpiryChoice)}
              {...(refusal?.field === 'expiresAt' && expiry !== 'date'
                ? invalid('expiresAt')
                : { 'aria-describedby': 'key-expiry-hint' })}
            >
              {EXPIRY_CHOICES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            {expiry !== 'date' &&
              (fieldError('expiresAt') ?? (
                <span id="key-expiry-hint" class="muted small">
                  {expiry === 'never'
                    ? 'It works until you revoke it.'
                    : `It stops working at the end of ${dayIn(Number(expiry))} (UTC).`}
                </span>
              ))}
          </label>
          {expiry === 'date' && (
            <label>
              Expiry date (YYYY-MM-DD)
              <input
                name="expiresAt"
                inputMode="numeric"
                autoComplete="off"
                placeholder={dayIn(30)}
                value={expires}
                onInput={(e) => setExpires(e.currentTarget.value)}
                {...(refusal?.field === 'expiresAt'
                  ? invalid('expiresAt')
                  : { 'aria-describedby': 'key-expiresAt-hint' })}
              />
              {fieldError('expiresAt') ?? (
                <span id="key-expiresAt-hint" class="muted small">
                  It stops working at the end of that day (UTC).
                </span>
              )}
            </label>
          )}
        </div>
        <fieldset class="kinds-field">
          <legend>Scopes: what the key may do</legend>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick={() => setChosen(new Set(Object.keys(SCOPES).filter((s) => s.endsWith(':read'))))}
            >
              Every read scope
            </button>
            <button type="button" class="secondary" onClick={() => setChosen(new Set())}>
              None
            </button>
          </div>
          <ScopePicker scopes={Object.keys(SCOPES)} chosen={chosen} onChange={setChosen} />
        </fieldset>
        {fieldError('scopes')}
        <button type="submit" {...disabledProps('Mint key', noScope)} disabled={busy || Boolean(noScope)}>
          {busy ? 'Minting…' : 'Mint key'}
        </button>
        <DisabledReason label="Mint key" reason={noScope} />
        {refusal && !['name', 'expiresAt', 'scopes'].includes(refusal.field ?? '') && (
          <p class="error" role="alert">
            {refusal.message}
          </p>
        )}
      </form>
      {minted && (
        <section class="card notice" data-testid="minted-key">
          <h2>Key “{minted.name}” — copy it now</h2>
          <p>
            It is shown this once; only its hash is stored.{' '}
            {minted.expiresAt ? (
              <>
                It expires <When at={minted.expiresAt} />.
              </>
            ) : (
              'It never expires.'
            )}
          </p>
          <SecretWithCopy value={minted.key} id="minted-key-secret" testid="minted-key-value" />
          <button type="button" class="link" onClick={() => setMinted(null)}>
            Done
          </button>
        </section>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section class="card">
        <h2>Active keys</h2>
        {listError ? (
          <p class="error" role="alert" data-testid="keys-refused">
            {listError}
          </p>
        ) : !keys ? (
          <p class="muted">Loading…</p>
        ) : (
          // On a phone each key is a card (style.css: table.stack); the table stays the one markup.
          <ListTable
            rows={keys}
            empty="No keys."
            columns={['Name', 'Prefix', 'Scopes', 'Created / expires', 'Last used']}
            actions
            stack
            testid="keys"
          >
            {(k) => (
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
                <td data-label="Created / expires">
                  {/* One child: on a phone the cell is a label-and-value grid. */}
                  <div>
                    <When at={k.createdAt} />
                    <div class="small">
                      <span class="muted">expires </span>
                      <span data-testid="key-expires">
                        <When at={k.expiresAt} none="never" />
                      </span>
                    </div>
                  </div>
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
            )}
          </ListTable>
        )}
      </section>
    </div>
  );
}
