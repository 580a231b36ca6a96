import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, TextField, useCall } from './panel-kit.tsx';
import { ListTable } from '../../list-table.tsx';

interface Database {
  name: string;
  suffix: string;
  user: string;
  host: string;
  createdAt: string;
}

interface DatabasesRead {
  hostingDatabases: { nodes: Database[] };
  hostingAccount: { connection: { databasePrefix: string; mysqlHost: string; mysqlPort: number } };
}

const DATABASES_QUERY = `query($id: ID!) {
  hostingDatabases(id: $id) { nodes { name suffix user host createdAt } }
  hostingAccount(id: $id) { connection { databasePrefix mysqlHost mysqlPort } }
}`;

/**
 * Databases tab: the extra MySQL databases. The API takes only the name after the account's
 * prefix; each database's user has the same name (the API returns no password to show).
 */
export function DatabasesPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive<DatabasesRead>(DATABASES_QUERY, ['hosting.'], { id: props.id }, reload);
  const create = useCall();
  const remove = useCall();
  const [suffix, setSuffix] = useState('');
  const [done, setDone] = useState('');
  const [deleted, setDeleted] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    setDeleted('');
    const r = await create.run(() =>
      gql<{ hostingDatabaseCreate: Database }>(
        'mutation($id: ID!, $suffix: String!) { hostingDatabaseCreate(id: $id, suffix: $suffix) { name user } }',
        { id: props.id, suffix: suffix.trim() },
      ),
    );
    if (r) {
      setDone(`Created ${r.hostingDatabaseCreate.name} (user ${r.hostingDatabaseCreate.user}).`);
      setSuffix('');
      setReload((n) => n + 1);
    }
  };

  const drop = async (db: Database) => {
    setDone('');
    setDeleted('');
    const r = await remove.run(() =>
      gql('mutation($id: ID!, $name: String!) { hostingDatabaseDelete(id: $id, name: $name) { name } }', {
        id: props.id,
        name: db.name,
      }),
    );
    if (r) setDeleted(`Deleted ${db.name}.`);
    setReload((n) => n + 1);
  };

  return (
    <Section title="Databases" testid="hosting-databases" state={state}>
      {({ hostingDatabases: { nodes }, hostingAccount: { connection } }) => (
        <>
          <p class="muted small">
            MySQL at <span class="mono">{connection.mysqlHost}</span> port{' '}
            <span class="mono">{connection.mysqlPort}</span>. Each database's user has its name.
          </p>
          <ListTable rows={nodes} empty="No databases yet." columns={['Name', 'User', 'Host', 'Created']} actions stack>
            {(db) => (
              <tr key={db.name} data-testid={`database-${db.name}`}>
                <td data-label="Name" class="mono wrap-anywhere">
                  {db.name}
                </td>
                <td data-label="User" class="mono wrap-anywhere">
                  {db.user}
                </td>
                <td data-label="Host" class="mono">
                  {db.host}
                </td>
                <td data-label="Created">
                  <When at={db.createdAt} />
                </td>
                <td>
                  <ConfirmButton
                    label="Delete"
                    question={`Delete the database ${db.name}?`}
                    detail="The database and all its data are removed for good."
                    confirmLabel="Delete database"
                    onConfirm={() => drop(db)}
                  />
                </td>
              </tr>
            )}
          </ListTable>
          <Outcome error={remove.refusal?.message} done={remove.busy ? 'Deleting…' : deleted} />
          <form onSubmit={submit} aria-busy={create.busy} noValidate data-testid="database-create">
            <h3>New database</h3>
            <TextField
              id="database-suffix"
              label="Name"
              value={suffix}
              onInput={setSuffix}
              mono
              placeholder="shop"
              error={create.errorOf('suffix')}
              hint={
                <>
                  1 to 16 lowercase letters, digits or underscores; the database is named{' '}
                  <span class="mono">
                    {connection.databasePrefix}
                    {suffix.trim() || 'name'}
                  </span>
                  .
                </>
              }
            />
            <button type="submit" disabled={create.busy}>
              {create.busy ? 'Creating…' : 'Create database'}
            </button>
            <Outcome error={create.formError('suffix')} done={done} />
          </form>
        </>
      )}
    </Section>
  );
}
