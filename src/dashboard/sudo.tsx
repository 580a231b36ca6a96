import { useEffect, useRef, useState } from 'preact/hooks';
import { onPasswordNeeded } from './api.ts';

/**
 * Sudo mode's password dialog: minting or revoking keys, revoking apps and approving devices
 * need the password typed in the last 10 minutes; api.ts opens this when the server says so
 * and sends the call again once the password is confirmed.
 */
export function SudoPrompt() {
  const dialog = useRef<HTMLDialogElement>(null);
  const [asking, setAsking] = useState<{ message: string; answer(password: string | null): void } | null>(null);
  const [password, setPassword] = useState('');

  useEffect(
    () =>
      onPasswordNeeded(
        (message) =>
          new Promise((answer) => {
            setPassword('');
            setAsking({ message, answer });
            dialog.current?.showModal();
          }),
      ),
    [],
  );

  const finish = (value: string | null) => {
    dialog.current?.close();
    asking?.answer(value);
    setAsking(null);
    setPassword('');
  };

  return (
    <dialog
      ref={dialog}
      class="confirm"
      data-testid="sudo-prompt"
      onCancel={(e) => {
        e.preventDefault();
        finish(null);
      }}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          finish(password);
        }}
      >
        <h2>Confirm your password</h2>
        <p>{asking?.message}</p>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => finish(null)}>
            Cancel
          </button>
          <button type="submit">Confirm</button>
        </div>
      </form>
    </dialog>
  );
}
