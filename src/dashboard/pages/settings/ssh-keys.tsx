import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { Field, FormAlert, useFormRequest } from '../../field.tsx';
import { When } from '../../format.tsx';
import { ListTable } from '../../list-table.tsx';
import { useLive } from '../../live-query.tsx';
import { graphql } from '../../graphql.ts';

const KEYS = graphql('{ sshKeys(first: 100) { edges { node { id name type bits fingerprint createdAt } } } }');
const ADD = graphql(
  'mutation($name: String!, $publicKey: String!) { sshKeyAdd(name: $name, publicKey: $publicKey) { id fingerprint } }',
);
const DELETE = graphql('mutation($id: ID!) { sshKeyDelete(id: $id) { id } }');
const FIELDS = ['name', 'publicKey'] as const;

/** The account's SSH keys: add one (its fingerprint shown as ssh-keygen -lf prints it), delete one. */
export function SshKeys() {
  const state = useLive(KEYS, ['account.ssh_key.']);
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [added, setAdded] = useState('');
  const [error, setError] = useState('');
  const { errors, busy, send } = useFormRequest(FIELDS);

  const add = (e: Event) => {
    e.preventDefault();
    setAdded('');
    void send(async () => {
      const { sshKeyAdd } = await gql(ADD, { name, publicKey });
      setName('');
      setPublicKey('');
      setAdded(`Key added: ${sshKeyAdd.fingerprint}.`);
    });
  };
  const remove = async (id: string) => {
    setError('');
    try {
      await gql(DELETE, { id });
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const rows = state.data?.sshKeys.edges.map((e) => e.node) ?? [];
  return (
    <>
      {state.error ? (
        <p class="error">{state.error}</p>
      ) : !state.data ? (
        <p class="muted">Loading…</p>
      ) : (
        <ListTable
          rows={rows}
          stack
          actions
          testid="ssh-keys"
          empty="No SSH key yet: add one to choose it when you order or reinstall a server."
          columns={['Name', 'Fingerprint', 'Type', 'Added']}
        >
          {(k) => (
            <tr key={k.id}>
              <td data-label="Name">{k.name}</td>
              <td data-label="Fingerprint" class="mono fingerprint">
                {k.fingerprint}
              </td>
              <td data-label="Type">
                {k.type} ({k.bits} bits)
              </td>
              <td data-label="Added">
                <When at={k.createdAt} />
              </td>
              <td>
                <ConfirmButton
                  label="Delete"
                  question={`Delete the SSH key ${k.name}?`}
                  detail="New servers can no longer be given it. Servers built with it keep it until they are reinstalled."
                  confirmLabel="Delete key"
                  onConfirm={() => remove(k.id)}
                />
              </td>
            </tr>
          )}
        </ListTable>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form onSubmit={add} noValidate aria-busy={busy}>
        <h3>Add a key</h3>
        <Field label="Key name" id="ssh-key-name" error={errors.name} hint="To tell it apart, e.g. laptop.">
          {(a) => <input {...a} maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field
          label="Public key"
          id="ssh-key-public"
          error={errors.publicKey}
          hint="The line of your .pub file: ssh-ed25519, ecdsa-sha2-nistp256, or ssh-rsa of 2048 bits or more."
        >
          {(a) => (
            <textarea
              {...a}
              rows={3}
              class="mono"
              spellcheck={false}
              placeholder="ssh-ed25519 AAAA… you@laptop"
              value={publicKey}
              onInput={(e) => setPublicKey(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormAlert error={errors.form} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Adding…' : 'Add key'}
          </button>
        </div>
        <p role="status" class="ok">
          {added}
        </p>
      </form>
    </>
  );
}
