import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { DialogButton, type SectionProps, useRun, whyNot } from './shared.tsx';
import { graphql, type TadaDocumentNode } from '../../graphql.ts';

const CREATE = graphql(
  `mutation($id: ID!, $name: String!) { serverSnapshotCreate(id: $id, name: $name) { id status } }`,
);
const REVERT = graphql(
  `mutation($id: ID!, $snapshotId: ID!) { serverSnapshotRevert(id: $id, snapshotId: $snapshotId) { id status } }`,
);
const DELETE = graphql(
  `mutation($id: ID!, $snapshotId: ID!) { serverSnapshotDelete(id: $id, snapshotId: $snapshotId) { id deleted } }`,
);

/** Snapshots: take one by name, revert the disk to one, delete one; a job under way shows until it is done. */
export function Snapshots({ server: s, onChanged }: SectionProps) {
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const { busy, error, run } = useRun();
  const takeWhy = whyNot(s, 'snapshot');
  const revertWhy = whyNot(s, 'revert');
  const creating = s.snapshots.filter((x) => x.status === 'creating');

  const take = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const taken = await run('take', () => gql(CREATE, { id: s.id, name: name.trim() }));
    if (taken) {
      setDone(`Snapshot “${name.trim()}” taken.`);
      setName('');
    }
    onChanged();
  };
  const act = async (
    key: string,
    query: TadaDocumentNode<unknown, { id: string; snapshotId: string }>,
    snapshotId: string,
    message: string,
  ) => {
    setDone('');
    if (await run(key, () => gql(query, { id: s.id, snapshotId }))) setDone(message);
    onChanged();
  };

  const nameError = error?.key === 'take' && error.field === 'name' ? error.message : '';
  const formError = error?.key === 'take' && !nameError ? error.message : '';
  const rowError = error && error.key !== 'take' ? error : null;
  return (
    <section class="card" data-testid="snapshots">
      <h2>Snapshots</h2>
      <form class="inline" onSubmit={take} aria-busy={busy === 'take'} noValidate>
        <label class="grow">
          Snapshot name
          <input
            value={name}
            maxLength={80}
            autoComplete="off"
            placeholder="before-upgrade"
            onInput={(e) => setName(e.currentTarget.value)}
            aria-invalid={nameError ? 'true' : undefined}
            aria-describedby={nameError ? 'snapshot-name-error' : undefined}
          />
        </label>
        <button
          type="submit"
          disabled={busy === 'take' || !!takeWhy}
          title={takeWhy ?? undefined}
          aria-describedby={takeWhy ? 'why-snapshot' : undefined}
        >
          {busy === 'take' ? 'Taking snapshot…' : 'Take snapshot'}
        </button>
        {takeWhy && (
          <span id="why-snapshot" class="visually-hidden">
            {takeWhy}
          </span>
        )}
      </form>
      {nameError && (
        <p id="snapshot-name-error" class="error field-error">
          {nameError}
        </p>
      )}
      {formError && <p class="error">{formError}</p>}
      {creating.length > 0 && (
        <p role="status" aria-busy="true" class="muted">
          Creating {creating.map((x) => x.name).join(', ')}… it shows as available when done.
        </p>
      )}
      {s.status === 'restoring' && (
        <p role="status" aria-busy="true" class="muted">
          Restoring the disk from a snapshot… the server is back in about a minute.
        </p>
      )}
      <p role="status" class="ok">
        {done}
      </p>
      {rowError && <p class="error">{rowError.message}</p>}
      {s.snapshots.length === 0 ? (
        <p class="muted">No snapshots yet. A snapshot is a restore point of the whole disk.</p>
      ) : (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Taken</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {s.snapshots.map((x) => (
              <tr key={x.id} data-testid={`snapshot-${x.name}`}>
                <td data-label="Name" class="wrap">
                  {x.name}
                </td>
                <td data-label="Status">
                  <StatusBadge status={x.status} />
                </td>
                <td data-label="Size">{x.sizeGb} GB</td>
                <td data-label="Taken">
                  <When at={x.createdAt} />
                </td>
                <td>
                  <div class="row-actions">
                    <DialogButton
                      id={`revert-${x.id}`}
                      label="Revert"
                      title={`Revert ${s.label} to “${x.name}”?`}
                      confirmLabel="Revert disk"
                      danger
                      busy={busy === `revert-${x.id}`}
                      disabledReason={
                        revertWhy ?? (x.status === 'available' ? null : 'The snapshot is not available yet.')
                      }
                      onConfirm={() =>
                        act(`revert-${x.id}`, REVERT, x.id, `Reverting to “${x.name}”: the server is restoring.`)
                      }
                    >
                      <p>
                        The disk is rolled back to this snapshot: everything written since it was taken is lost. The
                        server is restoring for about a minute.
                      </p>
                    </DialogButton>
                    <DialogButton
                      id={`delete-${x.id}`}
                      label="Delete"
                      title={`Delete snapshot “${x.name}”?`}
                      confirmLabel="Delete snapshot"
                      danger
                      busy={busy === `delete-${x.id}`}
                      disabledReason={whyNot(s, 'snapshotDelete')}
                      onConfirm={() => act(`delete-${x.id}`, DELETE, x.id, `Snapshot “${x.name}” deleted.`)}
                    >
                      <p>The restore point is gone for good; the live disk is not touched.</p>
                    </DialogButton>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
