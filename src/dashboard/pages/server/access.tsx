import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { SecretWithCopy } from '../../copy.tsx';
import { DialogButton, type SectionProps, useRun } from './shared.tsx';
import { graphql } from '../../graphql.ts';

const PASSWORD_RESET = graphql('mutation($id: ID!) { serverPasswordReset(id: $id) { username rootPassword } }');
const CONSOLE = graphql('mutation($id: ID!) { serverConsole(id: $id) { url } }');

/** Why a server cannot take a password reset or open its console now (both need it running), or null. */
const notRunning = (status: string) =>
  status === 'running' ? null : `Only a running server can do this; it is ${status} now.`;

/**
 * Getting into the server: a new root password (shown once, with a Copy button) and the web
 * console (the server's serial console in a new tab, where that password logs in).
 */
export function Access({ server: s }: SectionProps) {
  const [reset, setReset] = useState<{ username: string; rootPassword: string } | null>(null);
  const [consoleUrl, setConsoleUrl] = useState('');
  const { busy, error, run } = useRun();
  const why = notRunning(s.status);

  const resetPassword = async () => {
    setReset(null);
    const r = await run('reset', () => gql(PASSWORD_RESET, { id: s.id }));
    if (r) setReset(r.serverPasswordReset);
  };

  const openConsole = async () => {
    setConsoleUrl('');
    // The tab opens at the click (one opened after an answer may be blocked as a pop-up) and
    // goes to the console once its single-use URL is known.
    const tab = window.open('', '_blank');
    const r = await run('console', () => gql(CONSOLE, { id: s.id }));
    if (!r) return void tab?.close();
    if (tab) tab.location.href = r.serverConsole.url;
    else setConsoleUrl(r.serverConsole.url);
  };

  return (
    <section class="card" data-testid="server-access">
      <h2>Access</h2>
      <p class="muted">
        Log in on the web console as {s.os === 'windows' ? 'Administrator' : 'root'} with the root password. A reset
        sets a new one and shows it once.
      </p>
      <div class="actions">
        <button
          type="button"
          onClick={openConsole}
          aria-busy={busy === 'console' || undefined}
          {...(why ? { disabled: true, title: why, 'aria-describedby': 'why-console' } : {})}
        >
          Console
        </button>
        {why && (
          <span id="why-console" class="visually-hidden">
            {why}
          </span>
        )}
        <DialogButton
          id="password-reset"
          label="Reset root password"
          title={`Reset the root password of ${s.label}?`}
          confirmLabel="Reset password"
          onConfirm={resetPassword}
          disabledReason={why}
          busy={busy === 'reset'}
        >
          <p>
            The server gets a new random root password at once; the old one stops working. The new one is shown only
            once.
          </p>
        </DialogButton>
      </div>
      {consoleUrl && (
        <p role="status">
          <a href={consoleUrl} target="_blank" rel="noopener">
            Open the console
          </a>{' '}
          (the link works once, within a minute).
        </p>
      )}
      {reset && (
        <section class="notice-box" aria-label="New root password" data-testid="root-password">
          <p>
            New password for <strong>{reset.username}</strong>:
          </p>
          <SecretWithCopy value={reset.rootPassword} id="root-password-value" />
          <p class="small">Shown only this once and stored nowhere: copy it now. A new reset replaces it.</p>
          <button type="button" class="secondary" onClick={() => setReset(null)}>
            Done
          </button>
        </section>
      )}
      {error && <p class="error">{error.message}</p>}
    </section>
  );
}
