import { useLive } from './live-query.tsx';
import { Link } from './router.tsx';
import { graphql } from './graphql.ts';

const KEYS = graphql('{ sshKeys(first: 100) { edges { node { id name fingerprint } } } }');

/**
 * The account's SSH keys as checkboxes, for a server's order or reinstall (`sshKeyIds`): root's
 * authorized_keys gets the ticked ones. Windows takes none, so the list says so instead.
 */
export function SshKeyPicker(props: {
  idPrefix: string;
  chosen: readonly string[];
  onChange(ids: string[]): void;
  os: string | undefined;
  error?: string;
}) {
  const state = useLive(KEYS, ['account.ssh_key.']);
  const errorId = `${props.idPrefix}-ssh-keys-error`;
  const keys = state.data?.sshKeys.edges.map((e) => e.node) ?? [];
  return (
    <fieldset class="ssh-keys" aria-describedby={props.error ? errorId : undefined}>
      <legend>SSH keys for root</legend>
      {state.error ? (
        <p class="muted">Not available: {state.error}</p>
      ) : !state.data ? (
        <p class="muted">Loading…</p>
      ) : props.os === 'windows' ? (
        <p class="muted small">Windows takes no SSH keys: sign in with the Administrator password.</p>
      ) : keys.length === 0 ? (
        <p class="muted small">
          No SSH key on the account yet. <Link href="/settings#ssh-keys">Add one in Settings</Link>, or sign in with the
          root password.
        </p>
      ) : (
        keys.map((k) => (
          <label key={k.id} class="check">
            <input
              type="checkbox"
              name="sshKeyIds"
              value={k.id}
              checked={props.chosen.includes(k.id)}
              onChange={(e) =>
                props.onChange(
                  e.currentTarget.checked ? [...props.chosen, k.id] : props.chosen.filter((id) => id !== k.id),
                )
              }
            />
            <span>
              {k.name} <span class="mono small muted fingerprint">{k.fingerprint}</span>
            </span>
          </label>
        ))
      )}
      {props.error && (
        <p id={errorId} class="error field-error">
          {props.error}
        </p>
      )}
    </fieldset>
  );
}
