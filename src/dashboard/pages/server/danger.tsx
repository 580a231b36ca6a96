import { useRef, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { navigate } from '../../router.tsx';
import { SshKeyPicker } from '../../ssh-key-picker.tsx';
import { DialogButton, type OsTemplate, type SectionProps, useRun, whyNot } from './shared.tsx';
import { graphql } from '../../graphql.ts';

const REINSTALL = graphql(`mutation($id: ID!, $osTemplate: String!, $sshKeyIds: [ID!]) {
  serverReinstall(id: $id, osTemplate: $osTemplate, sshKeyIds: $sshKeyIds) { id status }
}`);
const TERMINATE = graphql('mutation($id: ID!) { serverTerminate(id: $id) { id status } }');

/** Reinstall: wipe the disk and rebuild from a template of the catalogue, confirmed (all data goes). */
export function Reinstall({ server: s, templates, onChanged }: SectionProps & { templates: OsTemplate[] }) {
  const [template, setTemplate] = useState('');
  const [done, setDone] = useState('');
  const [sshKeyIds, setSshKeyIds] = useState<string[]>([]);
  const { busy, error, run } = useRun();
  const chosen = templates.find((t) => t.id === (template || s.osTemplate)) ?? templates[0];
  const why = whyNot(s, 'reinstall');

  const reinstall = async () => {
    if (!chosen) return;
    setDone('');
    const keys = chosen.os === 'windows' ? [] : sshKeyIds;
    if (await run('reinstall', () => gql(REINSTALL, { id: s.id, osTemplate: chosen.id, sshKeyIds: keys })))
      setDone(`Reinstalling with ${chosen.name}.`);
    onChanged();
  };
  const fieldError = error?.field === 'osTemplate' || error?.field === 'os' ? error.message : '';
  const keysError = error?.field === 'sshKeyIds' ? error.message : undefined;
  return (
    <section class="card" data-testid="reinstall">
      <h2>Reinstall</h2>
      <label>
        Operating system
        <select
          value={chosen?.id ?? ''}
          onChange={(e) => setTemplate(e.currentTarget.value)}
          aria-invalid={fieldError ? 'true' : undefined}
          aria-describedby={fieldError ? 'reinstall-error' : undefined}
        >
          {templates.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
              {t.id === s.osTemplate ? ' (installed now)' : ''}
            </option>
          ))}
        </select>
      </label>
      {fieldError && (
        <p id="reinstall-error" class="error field-error">
          {fieldError}
        </p>
      )}
      <SshKeyPicker idPrefix="reinstall" chosen={sshKeyIds} onChange={setSshKeyIds} os={chosen?.os} error={keysError} />
      {s.status === 'reinstalling' && (
        <p role="status" aria-busy="true" class="muted">
          Reinstalling… the server runs again in about a minute and a half.
        </p>
      )}
      <div class="actions">
        <DialogButton
          id="reinstall"
          label="Reinstall"
          title={`Reinstall ${s.label} with ${chosen?.name ?? 'this system'}?`}
          confirmLabel="Wipe and reinstall"
          danger
          busy={busy === 'reinstall'}
          disabledReason={why ?? (chosen ? null : 'No system is offered.')}
          onConfirm={reinstall}
        >
          <p>
            The disk is wiped: every file on it is lost (snapshots are kept), the root password is replaced and root's
            SSH keys are the ones ticked. This cannot be undone.
          </p>
        </DialogButton>
      </div>
      {error && !fieldError && !keysError && <p class="error">{error.message}</p>}
      <p role="status" class="ok">
        {done}
      </p>
    </section>
  );
}

/**
 * Terminate: GitHub's delete-repository pattern, the server's label typed to enable the button.
 * Afterwards the server is gone, so the page goes back to the list.
 */
export function Terminate({ server: s }: SectionProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const why = whyNot(s, 'terminate');
  const matches = typed === s.label;

  const terminate = async (e: Event) => {
    e.preventDefault();
    if (!matches) return;
    setBusy(true);
    setError('');
    try {
      await gql(TERMINATE, { id: s.id });
      dialog.current?.close();
      navigate('/servers');
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <section class="card danger-zone" data-testid="terminate">
      <h2>Danger zone</h2>
      <p>Terminating destroys the server, its disk and snapshots, and releases its addresses. It cannot be undone.</p>
      <TerminateButton
        why={why}
        onClick={() => {
          setTyped('');
          setError('');
          dialog.current?.showModal();
        }}
      />
      <dialog ref={dialog} class="confirm" aria-labelledby="terminate-title">
        <form onSubmit={terminate} aria-busy={busy}>
          <h2 id="terminate-title">Terminate {s.label}?</h2>
          <p>
            The server, its disk and its {s.snapshots.length} snapshot{s.snapshots.length === 1 ? '' : 's'} are
            destroyed at once, its add-ons end (no refund) and its addresses are released. Nothing can be recovered.
          </p>
          <label class="dialog-field">
            Type <strong class="mono">{s.label}</strong> to confirm
            <input
              value={typed}
              autoComplete="off"
              spellcheck={false}
              onInput={(e) => setTyped(e.currentTarget.value)}
              aria-describedby="terminate-hint"
            />
          </label>
          <p id="terminate-hint" class="small">
            {matches ? 'The name matches.' : 'The button is enabled once the name matches exactly.'}
          </p>
          {error && <p class="error">{error}</p>}
          <div class="actions">
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" class="danger solid" disabled={!matches || busy} aria-describedby="terminate-hint">
              {busy ? 'Terminating…' : `Terminate ${s.label}`}
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}

/** The danger zone's button that opens the typed-name dialog. */
function TerminateButton(props: { why: string | null; onClick(): void }) {
  return (
    <div class="actions">
      <button
        type="button"
        class="danger"
        onClick={props.onClick}
        {...(props.why ? { disabled: true, title: props.why, 'aria-describedby': 'why-terminate' } : {})}
      >
        Terminate server
      </button>
      {props.why && (
        <span id="why-terminate" class="visually-hidden">
          {props.why}
        </span>
      )}
    </div>
  );
}
