import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { When } from '../../format.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const READ_QUERY = graphql(
  'query($id: ID!, $path: String!) { hostingFileRead(id: $id, path: $path) { path content sizeBytes modifiedAt } }',
);
type TextFile = ResultOf<typeof READ_QUERY>['hostingFileRead'];
const WRITE_MUTATION = graphql(
  'mutation($id: ID!, $path: String!, $content: String!) { hostingFileWrite(id: $id, path: $path, content: $content) { path sizeBytes modifiedAt } }',
);
const MKDIR_MUTATION = graphql(
  'mutation($id: ID!, $path: String!) { hostingFileMkdir(id: $id, path: $path) { path } }',
);
const RENAME_MUTATION = graphql(
  'mutation($id: ID!, $from: String!, $to: String!) { hostingFileRename(id: $id, from: $from, to: $to) { path } }',
);

/** `/a/b` + `c` → `/a/b/c` (paths are absolute inside the account, "/" its home). */
const joinPath = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`;

/** Bytes as a person reads them: 512 B, 1.5 KiB, 3.2 MiB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let n = bytes / 1024;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(1)} ${units[i]}`;
}

/** A name typed for a new entry, checked before the round trip: one path segment. */
function nameProblem(name: string): string | undefined {
  if (!name) return 'Type a name.';
  if (name.includes('/')) return 'A name has no "/": open the folder first.';
  if (name === '.' || name === '..') return 'Choose another name.';
  return undefined;
}

const invalid = (error: string | undefined, id: string) => ({
  'aria-invalid': error ? ('true' as const) : undefined,
  'aria-describedby': error ? id : undefined,
});

/** New file or new folder in the folder shown: one name, two buttons. */
export function NewEntryForm(props: { id: string; dir: string; onDone(message: string): void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<'file' | 'folder' | null>(null);

  const create = async (kind: 'file' | 'folder') => {
    const trimmed = name.trim();
    const problem = nameProblem(trimmed);
    setError(problem);
    if (problem) return;
    setBusy(kind);
    const path = joinPath(props.dir, trimmed);
    try {
      if (kind === 'folder') await gql(MKDIR_MUTATION, { id: props.id, path });
      else await gql(WRITE_MUTATION, { id: props.id, path, content: '' });
      setName('');
      props.onDone(`Created ${kind} ${trimmed}.`);
    } catch (err) {
      setError((err as Error).message);
    }
    setBusy(null);
  };

  return (
    <form
      class="inline"
      aria-busy={busy !== null}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void create('file');
      }}
    >
      <label class="grow">
        New file or folder name
        <input
          value={name}
          autoComplete="off"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
          {...invalid(error, 'new-entry-error')}
        />
      </label>
      <button type="submit" disabled={busy !== null}>
        {busy === 'file' ? 'Creating…' : 'New file'}
      </button>
      <button type="button" class="secondary" disabled={busy !== null} onClick={() => void create('folder')}>
        {busy === 'folder' ? 'Creating…' : 'New folder'}
      </button>
      {error && (
        <p id="new-entry-error" class="error field-error">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * A form opened below the list, maybe below the fold: brought into view, with the keyboard in
 * `field` (once `ready`), so the person sees and types into what they just opened.
 */
function useReveal(
  box: RefObject<HTMLElement | null>,
  field: RefObject<HTMLInputElement | HTMLTextAreaElement | null>,
  block: ScrollLogicalPosition,
  ready = true,
) {
  useEffect(() => {
    if (!ready) return;
    box.current?.scrollIntoView({ block });
    field.current?.focus({ preventScroll: true });
  }, [ready]);
}

/** Rename (or move) one entry: its new path, prefilled with the current one, its name selected. */
export function RenameForm(props: { id: string; from: string; onCancel(): void; onDone(message: string): void }) {
  const form = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useReveal(form, input, 'nearest');
  // Typing replaces the name and keeps the folder: the name is what a rename usually changes.
  useEffect(() => input.current?.setSelectionRange(props.from.lastIndexOf('/') + 1, props.from.length), [props.from]);
  const [to, setTo] = useState(props.from);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const name = props.from.split('/').pop() ?? props.from;

  const submit = async (e: Event) => {
    e.preventDefault();
    const target = to.trim();
    if (!target.startsWith('/')) return setError('The new path starts with "/" (the account’s home).');
    if (target === props.from) return setError('Type a different path.');
    setBusy(true);
    try {
      await gql(RENAME_MUTATION, { id: props.id, from: props.from, to: target });
      props.onDone(`Renamed ${name} to ${target}.`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="rename" onSubmit={submit} noValidate aria-busy={busy} data-testid="rename-form">
      <label>
        New path for {name}
        <input
          ref={input}
          value={to}
          autoComplete="off"
          onInput={(e) => setTo((e.target as HTMLInputElement).value)}
          {...invalid(error, 'rename-error')}
        />
      </label>
      {error && (
        <p id="rename-error" class="error field-error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Renaming…' : 'Rename'}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A text file open in a <textarea>: read once, saved whole (UTF-8, at most 1 MiB: larger or binary files download). */
export function FileEditor(props: { id: string; path: string; onClose(): void; onSaved(): void }) {
  const [file, setFile] = useState<TextFile | null>(null);
  const [text, setText] = useState('');
  const [loadError, setLoadError] = useState('');
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useReveal(box, area, 'start', file !== null);

  useEffect(() => {
    gql(READ_QUERY, { id: props.id, path: props.path }).then(
      ({ hostingFileRead }) => {
        setFile(hostingFileRead);
        setText(hostingFileRead.content);
      },
      (err: Error) => setLoadError(err.message),
    );
  }, [props.id, props.path]);

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    setStatus('');
    try {
      const { hostingFileWrite } = await gql(WRITE_MUTATION, {
        id: props.id,
        path: props.path,
        content: text,
      });
      setFile({ ...hostingFileWrite, content: text });
      setStatus('Saved.');
      props.onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
    setBusy(false);
  };

  return (
    <section ref={box} class="editor" aria-labelledby="editor-title" data-testid="file-editor">
      <h3 id="editor-title" class="mono">
        {props.path}
      </h3>
      {loadError ? (
        <>
          <p role="alert" class="error">
            {loadError}
          </p>
          <button type="button" class="secondary" onClick={props.onClose}>
            Close
          </button>
        </>
      ) : !file ? (
        <p class="muted">Opening…</p>
      ) : (
        <form onSubmit={save} aria-busy={busy}>
          <p class="small muted">
            {formatSize(file.sizeBytes)}, modified <When at={file.modifiedAt} />
          </p>
          <label>
            Content
            <textarea
              ref={area}
              value={text}
              rows={16}
              spellcheck={false}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? 'editor-error' : undefined}
            />
          </label>
          {error && (
            <p id="editor-error" class="error field-error">
              {error}
            </p>
          )}
          <div class="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" class="secondary" onClick={props.onClose}>
              Close
            </button>
            <span role="status" class="small ok">
              {status}
            </span>
          </div>
        </form>
      )}
    </section>
  );
}
