import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { SecretWithCopy } from '../../copy.tsx';
import { When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, TextField, useCall } from './panel-kit.tsx';
import { ListTable } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** A password just set: shown once, with what connects with it. */
interface NewPassword {
  name: string;
  user: string;
  host: string;
  password: string;
}

const DATABASES_QUERY = graphql(`query($id: ID!) {
  hostingDatabases(id: $id) { nodes { name suffix user host createdAt passwordSetAt } }
  hostingAccount(id: $id) { connection { databasePrefix mysqlHost mysqlPort } }
}`);
type Database = ResultOf<typeof DATABASES_QUERY>['hostingDatabases']['nodes'][number];

const PASSWORD_RESET = graphql(`mutation($id: ID!, $name: String!) {
  hostingDatabasePasswordReset(id: $id, name: $name) { name user host password }
}`);

/**
 * Databases tab: the extra MySQL databases. The API takes only the name after the account's
 * prefix; each database's user has the same name and no password until one is set here (a new
 * random one, shown once).
 */
export function DatabasesPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(DATABASES_QUERY, ['hosting.'], { id: props.id }, reload);
  const create = useCall();
  const remove = useCall();
  const password = useCall();
  const [fresh, setFresh] = useState<NewPassword | null>(null);
  const [suffix, setSuffix] = useState('');
  const [done, setDone] = useState('');
  const [deleted, setDeleted] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    setDeleted('');
    const r = await create.run(() =>
      gql(
        graphql(
          'mutation($id: ID!, $suffix: String!) { hostingDatabaseCreate(id: $id, suffix: $suffix) { name user } }',
        ),
        { id: props.id, suffix: suffix.trim() },
      ),
    );
    if (r) {
      setDone(`Created ${r.hostingDatabaseCreate.name} (user ${r.hostingDatabaseCreate.user}).`);
      setSuffix('');
      setReload((n) => n + 1);
    }
  };

  const setPassword = async (db: Database) => {
    setDone('');
    setDeleted('');
    setFresh(null);
    const r = await password.run(() => gql(PASSWORD_RESET, { id: props.id, name: db.name }));
    if (r) setFresh(r.hostingDatabasePasswordReset);
    setReload((n) => n + 1);
  };

  const drop = async (db: Database) => {
    setDone('');
    setDeleted('');
    const r = await remove.run(() =>
      gql(graphql('mutation($id: ID!, $name: String!) { hostingDatabaseDelete(id: $id, name: $name) { name } }'), {
        id: props.id,
        name: db.name,
      }),
    );
    if (r) setDeleted(`Deleted ${db.name}.`);
    if (r && fresh?.name === db.name) setFresh(null);
    setReload((n) => n + 1);
  };

  return (
    <Section title="Databases" testid="hosting-databases" state={state}>
      {({ hostingDatabases: { nodes }, hostingAccount: { connection } }) => (
        <>
          <p class="muted small">
            MySQL at <span class="mono">{connection.mysqlHost}</span> port{' '}
            <span class="mono">{connection.mysqlPort}</span>. Each database's user has its name, and no password until
            you set one.
          </p>
          <ListTable
            rows={nodes}
            empty="No databases yet."
            columns={['Name', 'Host', 'Password', 'Created']}
            actions
            stack
          >
            {(db) => (
              <tr key={db.name} data-testid={`database-${db.name}`}>
                <td data-label="Name" class="mono">
                  {db.name}
                </td>
                <td data-label="Host" class="mono">
                  {db.host}
                </td>
                <td data-label="Password" data-testid="database-password-state">
                  {db.passwordSetAt ? (
                    <span>
                      set <When at={db.passwordSetAt} />
                    </span>
                  ) : (
                    <span class="unverified">not set</span>
                  )}
                </td>
                <td data-label="Created">
                  <When at={db.createdAt} />
                </td>
                <td>
                  <span class="row-actions">
                    {db.passwordSetAt ? (
                      <ConfirmButton
                        label="Reset password"
                        question={`Reset the password of ${db.user}?`}
                        detail="The user gets a new random password at once; the current one stops working, so update your site's configuration with the new one."
                        confirmLabel="Reset password"
                        onConfirm={() => setPassword(db)}
                      />
                    ) : (
                      <button type="button" class="secondary" disabled={password.busy} onClick={() => setPassword(db)}>
                        Set password
                      </button>
                    )}
                    <ConfirmButton
                      label="Delete"
                      question={`Delete the database ${db.name}?`}
                      detail="The database and all its data are removed for good."
                      confirmLabel="Delete database"
                      onConfirm={() => drop(db)}
                    />
                  </span>
                </td>
              </tr>
            )}
          </ListTable>
          {fresh && (
            <section class="notice-box" aria-label={`New password of ${fresh.user}`} data-testid="database-password">
              <p>
                New password for the MySQL user <strong class="mono">{fresh.user}</strong> (host{' '}
                <span class="mono">{fresh.host}</span>, database <span class="mono">{fresh.name}</span>):
              </p>
              <SecretWithCopy value={fresh.password} id="database-password-value" />
              <p class="small">
                Shown only this once; only its hash is kept. Copy it into your site's configuration now; a new reset
                replaces it.
              </p>
              <button type="button" class="secondary" onClick={() => setFresh(null)}>
                Done
              </button>
            </section>
          )}
          <Outcome
            error={remove.refusal?.message ?? password.refusal?.message}
            done={remove.busy ? 'Deleting…' : password.busy ? 'Setting the password…' : deleted}
          />
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
