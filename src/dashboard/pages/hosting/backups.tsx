import { useState } from 'preact/hooks';
import { binaryCall, gql, saveDownload } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { formatUtc, StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { bytes, Outcome, useCall } from './panel-kit.tsx';
import { ListTable } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const BACKUPS_QUERY = graphql(
  'query($id: ID!) { hostingBackups(id: $id) { nodes { id status sizeBytes databases createdAt } } }',
);
type Backup = ResultOf<typeof BACKUPS_QUERY>['hostingBackups']['nodes'][number];
const CREATE = graphql('mutation($id: ID!) { hostingBackupCreate(id: $id) { id sizeBytes createdAt } }');
const RESTORE = graphql(
  'mutation($id: ID!, $bid: ID!) { hostingBackupRestore(id: $id, bid: $bid) { id restoredAt databases } }',
);
const DELETE = graphql('mutation($id: ID!, $bid: ID!) { hostingBackupDelete(id: $id, bid: $bid) { id } }');

/** Backups tab: restore points of the site's files and databases; take one, restore one, delete one. */
export function BackupsPanel(props: { id: string }) {
  // Bumped after this tab's own changes: backups have no live event of their own.
  const [reload, setReload] = useState(0);
  const state = useLive(BACKUPS_QUERY, ['hosting.'], { id: props.id }, reload);
  const call = useCall();
  const [done, setDone] = useState('');
  const [working, setWorking] = useState('');

  const act = async <T,>(what: string, mutation: () => Promise<T>, said: (r: T) => string) => {
    setDone('');
    setWorking(what);
    const r = await call.run(mutation);
    setWorking('');
    if (r) setDone(said(r));
    setReload((n) => n + 1);
  };

  const create = () =>
    act(
      'Backing up the files and databases…',
      () => gql(CREATE, { id: props.id }),
      (r) =>
        `Backup of ${formatUtc(r.hostingBackupCreate.createdAt)} taken (${bytes(r.hostingBackupCreate.sizeBytes)}).`,
    );
  const restore = (b: Backup) =>
    act(
      `Restoring the backup of ${formatUtc(b.createdAt)}…`,
      () => gql(RESTORE, { id: props.id, bid: b.id }),
      (r) =>
        `Restored the backup of ${formatUtc(b.createdAt)}${
          r.hostingBackupRestore.databases.length ? ` with ${r.hostingBackupRestore.databases.join(', ')}` : ''
        }.`,
    );
  const remove = (b: Backup) =>
    act(
      `Deleting the backup of ${formatUtc(b.createdAt)}…`,
      () => gql(DELETE, { id: props.id, bid: b.id }),
      () => `Deleted the backup of ${formatUtc(b.createdAt)}.`,
    );

  // The archive streams through the session's binary route, as the file manager's downloads do.
  const download = async (b: Backup) => {
    setDone('');
    const r = await call.run(async () => {
      await saveDownload(await binaryCall('GET', `/hosting/${props.id}/backups/${b.id}/download`), `${b.id}.tar.gz`);
      return true;
    });
    if (r) setDone(`Downloaded the backup of ${formatUtc(b.createdAt)}.`);
  };

  return (
    <Section title="Backups" testid="hosting-backups" state={state}>
      {({ hostingBackups: { nodes } }) => (
        <div aria-busy={call.busy}>
          <p class="muted small">
            A backup holds the site's files and its databases. Restoring one replaces the current files and databases.
          </p>
          <div class="actions">
            <button type="button" onClick={create} disabled={call.busy}>
              {working.startsWith('Backing up') ? 'Backing up…' : 'Back up now'}
            </button>
          </div>
          {working ? <p role="status">{working}</p> : <Outcome error={call.refusal?.message} done={done} />}
          <ListTable
            rows={nodes}
            empty="No backups yet."
            columns={['Taken', 'Status', 'Size', 'Databases']}
            actions
            stack
          >
            {(b) => (
              <tr key={b.id} data-testid={`backup-${b.id}`}>
                <td data-label="Taken">
                  <When at={b.createdAt} />
                </td>
                <td data-label="Status">
                  <StatusBadge status={b.status} />
                </td>
                <td data-label="Size">{bytes(b.sizeBytes)}</td>
                <td data-label="Databases" class="mono small">
                  {b.databases.join(', ') || '—'}
                </td>
                <td>
                  <span class="row-actions">
                    <button type="button" class="secondary" onClick={() => download(b)}>
                      Download
                    </button>
                    <ConfirmButton
                      label="Restore"
                      question={`Restore the backup of ${formatUtc(b.createdAt)}?`}
                      detail="The site's files and databases are replaced by those in the backup; databases made since are dropped."
                      confirmLabel="Restore backup"
                      onConfirm={() => restore(b)}
                    />
                    <ConfirmButton
                      label="Delete"
                      question={`Delete the backup of ${formatUtc(b.createdAt)}?`}
                      detail="The backup and its archive are removed for good."
                      confirmLabel="Delete backup"
                      onConfirm={() => remove(b)}
                    />
                  </span>
                </td>
              </tr>
            )}
          </ListTable>
        </div>
      )}
    </Section>
  );
}
