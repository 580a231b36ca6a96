import { useEffect, useState } from 'preact/hooks';
import { binaryCall, gql, saveDownload } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Link, useLocation } from '../../router.tsx';
import { FileEditor, formatSize, NewEntryForm, RenameForm } from './files-forms.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const LIST_QUERY = graphql(
  'query($id: ID!, $path: String) { hostingFilesList(id: $id, path: $path) { path truncated entries { name path type sizeBytes modifiedAt } } }',
);
type FileEntry = ResultOf<typeof LIST_QUERY>['hostingFilesList']['entries'][number];

const DELETE_MUTATION = graphql(
  'mutation($id: ID!, $path: String!, $recursive: Boolean) { hostingFileDelete(id: $id, path: $path, recursive: $recursive) { path } }',
);

/** The folders from home down to `dir`, each with the path that lists it. */
function crumbs(dir: string): { name: string; path: string }[] {
  const parts = dir.split('/').filter(Boolean);
  return [
    { name: 'home', path: '/' },
    ...parts.map((name, i) => ({ name, path: `/${parts.slice(0, i + 1).join('/')}` })),
  ];
}

/**
 * Files tab: the site's file manager. The folder shown is in the address (?path=), so a reload
 * or a shared link keeps it; text files open in an editor, any file downloads and uploads
 * through the binary routes the session reaches at /dashboard/api/v1.
 */
export function FilesPanel(props: { id: string }) {
  const { query } = useLocation();
  const dir = query.get('path') || '/public_html';
  const [reload, setReload] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [failure, setFailure] = useState('');
  const [uploading, setUploading] = useState(false);
  const state = useLive(LIST_QUERY, [], { id: props.id, path: dir }, reload);
  // Another folder: what was open or being renamed belongs to the one left.
  useEffect(() => {
    setOpen(null);
    setRenaming(null);
    setFailure('');
    setStatus('');
  }, [dir]);
  const refresh = () => setReload((n) => n + 1);
  const folderHref = (p: string) => `/hosting/${props.id}/files?path=${encodeURIComponent(p)}`;

  const run = async (work: () => Promise<string>) => {
    setFailure('');
    setStatus('');
    try {
      setStatus(await work());
      refresh();
    } catch (err) {
      setFailure((err as Error).message);
    }
  };

  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setUploading(true);
    const form = new FormData();
    form.append('file', file, file.name);
    await run(async () => {
      await binaryCall('POST', `/hosting/${props.id}/files/upload?path=${encodeURIComponent(dir)}`, form);
      return `Uploaded ${file.name}.`;
    });
    input.value = '';
    setUploading(false);
  };

  const download = (entry: FileEntry) =>
    run(async () => {
      const res = await binaryCall('GET', `/hosting/${props.id}/files/download?path=${encodeURIComponent(entry.path)}`);
      await saveDownload(res, entry.name);
      return `Downloaded ${entry.name}.`;
    });

  const remove = (entry: FileEntry) =>
    run(async () => {
      await gql(DELETE_MUTATION, { id: props.id, path: entry.path, recursive: entry.type === 'directory' });
      if (open === entry.path) setOpen(null);
      return `Deleted ${entry.name}.`;
    });

  const listing = state.data?.hostingFilesList;
  return (
    <section class="card" data-testid="hosting-files" aria-busy={!state.data && !state.error}>
      <h2>Files</h2>
      <nav aria-label="Folder" class="crumbs">
        <ol>
          {crumbs(dir).map((c, i, all) => (
            <li key={c.path}>
              {i === all.length - 1 ? (
                <span aria-current="location" class="mono">
                  {c.name}
                </span>
              ) : (
                <Link href={folderHref(c.path)}>{c.name}</Link>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <NewEntryForm id={props.id} dir={dir} onDone={(message) => run(async () => message)} />
      <label class="upload">
        Upload a file to this folder
        <input type="file" disabled={uploading} onChange={(e) => void upload(e.currentTarget as HTMLInputElement)} />
      </label>
      <p role="status" class="small">
        {uploading ? 'Uploading…' : status}
      </p>
      {failure && (
        <p role="alert" class="error">
          {failure}
        </p>
      )}
      {state.error ? (
        <p class="error">{state.error}</p>
      ) : !listing ? (
        <p class="muted">Loading…</p>
      ) : (
        // On a phone each row is a card (style.css: table.stack); long names wrap.
        <ListTable
          rows={listing.entries}
          empty="This folder is empty."
          columns={['Name', { label: 'Size', class: 'num' }, 'Modified']}
          actions
          stack
          class="files"
        >
          {(entry) => (
            <tr key={entry.path} data-testid={`file-${entry.name}`}>
              <td data-label="Name" class="wrap">
                {entry.type === 'directory' ? (
                  <RowLink href={folderHref(entry.path)}>{`${entry.name}/`}</RowLink>
                ) : entry.type === 'file' ? (
                  <button type="button" class="link" onClick={() => setOpen(entry.path)}>
                    {entry.name}
                  </button>
                ) : (
                  <span>{entry.name}</span>
                )}
              </td>
              <td data-label="Size" class="num">
                {entry.type === 'directory' ? '—' : formatSize(entry.sizeBytes)}
              </td>
              <td data-label="Modified">
                <When at={entry.modifiedAt} />
              </td>
              <td>
                <div class="row-actions">
                  {entry.type === 'file' && (
                    <button type="button" onClick={() => void download(entry)} aria-label={`Download ${entry.name}`}>
                      Download
                    </button>
                  )}
                  <button
                    type="button"
                    aria-label={`Rename ${entry.name}`}
                    onClick={() => setRenaming(renaming === entry.path ? null : entry.path)}
                  >
                    Rename
                  </button>
                  <ConfirmButton
                    label="Delete"
                    question={`Delete ${entry.name}?`}
                    detail={
                      entry.type === 'directory'
                        ? `The folder ${entry.path} and everything in it are deleted for good.`
                        : `The file ${entry.path} is deleted for good.`
                    }
                    confirmLabel={`Delete ${entry.type === 'directory' ? 'folder' : 'file'}`}
                    onConfirm={() => remove(entry)}
                  />
                </div>
              </td>
            </tr>
          )}
        </ListTable>
      )}
      {listing?.truncated && <p class="small muted">Only the first 1000 entries are shown.</p>}
      {renaming && (
        <RenameForm
          id={props.id}
          from={renaming}
          onCancel={() => setRenaming(null)}
          onDone={(message) => {
            setRenaming(null);
            void run(async () => message);
          }}
        />
      )}
      {open && <FileEditor key={open} id={props.id} path={open} onClose={() => setOpen(null)} onSaved={refresh} />}
    </section>
  );
}
