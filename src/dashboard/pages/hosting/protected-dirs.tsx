import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, TextField, useCall } from './panel-kit.tsx';
import { ListTable } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const DIRS_QUERY = graphql(
  'query($id: ID!) { hostingProtectedDirs(id: $id) { nodes { path basicUser createdAt updatedAt } } }',
);
type ProtectedDir = ResultOf<typeof DIRS_QUERY>['hostingProtectedDirs']['nodes'][number];
const FIELDS = ['path', 'basicUser', 'password'];

/**
 * Protected directories tab: directories behind HTTP basic auth. Protecting a directory that is
 * protected already changes its user and password (the API never returns the password).
 */
export function ProtectedDirsPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(DIRS_QUERY, ['hosting.'], { id: props.id }, reload);
  const save = useCall();
  const removal = useCall();
  const [path, setPath] = useState('/public_html/');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState('');
  const [removed, setRemoved] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    setRemoved('');
    const r = await save.run(() =>
      gql(
        graphql(`mutation($id: ID!, $path: String!, $basicUser: String!, $password: String!) {
          hostingProtectedDirSet(id: $id, path: $path, basicUser: $basicUser, password: $password) { path basicUser } }`),
        { id: props.id, path: path.trim(), basicUser: user.trim(), password },
      ),
    );
    if (r) {
      setDone(`${r.hostingProtectedDirSet.path} asks for ${r.hostingProtectedDirSet.basicUser}'s password.`);
      setPassword('');
      setReload((n) => n + 1);
    }
  };

  const remove = async (dir: ProtectedDir) => {
    setDone('');
    setRemoved('');
    const r = await removal.run(() =>
      gql(graphql('mutation($id: ID!, $path: String!) { hostingProtectedDirDelete(id: $id, path: $path) { path } }'), {
        id: props.id,
        path: dir.path,
      }),
    );
    if (r) setRemoved(`${dir.path} is no longer protected.`);
    setReload((n) => n + 1);
  };

  return (
    <Section title="Protected directories" testid="hosting-protected-dirs" state={state}>
      {({ hostingProtectedDirs: { nodes } }) => (
        <>
          <ListTable
            rows={nodes}
            empty="No protected directories yet."
            columns={['Directory', 'User', 'Changed']}
            actions
          >
            {(d) => (
              <tr key={d.path} data-testid={`protected-${d.path}`}>
                <td class="mono">{d.path}</td>
                <td class="mono">{d.basicUser}</td>
                <td>
                  <When at={d.updatedAt} />
                </td>
                <td>
                  <ConfirmButton
                    label="Unprotect"
                    question={`Remove the password from ${d.path}?`}
                    detail="Anyone can then open the directory; its files stay."
                    confirmLabel="Remove protection"
                    onConfirm={() => remove(d)}
                  />
                </td>
              </tr>
            )}
          </ListTable>
          <Outcome error={removal.refusal?.message} done={removal.busy ? 'Removing…' : removed} />
          <form onSubmit={submit} aria-busy={save.busy} noValidate data-testid="protected-form">
            <h3>Protect a directory</h3>
            <p class="muted small">Protecting a directory again changes its user and password.</p>
            <TextField
              id="protected-path"
              label="Directory"
              value={path}
              onInput={setPath}
              mono
              error={save.errorOf('path')}
              hint="An existing directory, such as /public_html/admin."
            />
            <div class="fields">
              <TextField
                id="protected-user"
                label="User name"
                value={user}
                onInput={setUser}
                error={save.errorOf('basicUser')}
                hint="Letters, digits, dots, hyphens or underscores."
              />
              <TextField
                id="protected-password"
                label="Password"
                password
                value={password}
                onInput={setPassword}
                error={save.errorOf('password')}
                hint="8 to 72 bytes."
              />
            </div>
            <button type="submit" disabled={save.busy}>
              {save.busy ? 'Protecting…' : 'Protect directory'}
            </button>
            <Outcome error={save.formError(...FIELDS)} done={done} />
          </form>
        </>
      )}
    </Section>
  );
}
