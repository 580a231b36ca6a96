import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { Field, useFormRequest } from '../../field.tsx';
import { When } from '../../format.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../live-query.tsx';
import type { MailDomainRow } from './list.tsx';
import { NewAddressForm, useDomainList } from './shared.tsx';
import { graphql } from '../../graphql.ts';

/** A domain holds at most 200 aliases: one page shows them all. */
const ALIASES_QUERY = graphql(
  'query($id: Int!) { mailDomainAliases(id: $id, first: 200) { nodes { id source destination createdAt } } }',
);

const CREATE_MUTATION = graphql(`mutation($domainId: Int!, $sourceLocal: String!, $destination: String!) {
  mailAliasCreate(domainId: $domainId, sourceLocal: $sourceLocal, destination: $destination) { id source }
}`);

/** The new-alias form: the address on this domain and where its mail goes. */
function NewAlias(props: { domain: MailDomainRow; onCreated(source: string): void }) {
  const [sourceLocal, setSourceLocal] = useState('');
  const [destination, setDestination] = useState('');
  const { errors, busy, send } = useFormRequest(['sourceLocal', 'destination']);

  const submit = (e: Event) => {
    e.preventDefault();
    return send(async () => {
      const r = await gql(CREATE_MUTATION, {
        domainId: props.domain.id,
        sourceLocal,
        destination,
      });
      setSourceLocal('');
      setDestination('');
      props.onCreated(r.mailAliasCreate.source);
    });
  };

  return (
    <NewAddressForm
      title="New alias"
      testid="new-alias"
      busy={busy}
      onSubmit={submit}
      local={{
        label: 'Alias name',
        id: 'alias-source',
        domain: props.domain.domain,
        value: sourceLocal,
        error: errors.sourceLocal,
        onInput: setSourceLocal,
      }}
      submitLabel="Create alias"
      formError={errors.form}
    >
      <Field label="Forward to" id="alias-destination" error={errors.destination} hint="Any e-mail address.">
        {(a) => (
          <input
            {...a}
            type="email"
            autoComplete="off"
            value={destination}
            onInput={(e) => setDestination(e.currentTarget.value)}
          />
        )}
      </Field>
    </NewAddressForm>
  );
}

/** The forwarding aliases of a mail domain: the list, deleting one, and the form that adds one. */
export function Aliases(props: { domain: MailDomainRow; onChange(): void }) {
  const { state, message, changed, remove } = useDomainList(ALIASES_QUERY, props.domain.id, props.onChange);
  return (
    <Section title="Aliases" testid="aliases" state={state}>
      {({ mailDomainAliases: { nodes } }) => (
        <>
          <ListTable rows={nodes} empty="No aliases yet." columns={['Alias', 'Forwards to', 'Created']} actions stack>
            {(a) => (
              <tr key={a.id} data-testid={`alias-${a.source}`}>
                <td data-label="Alias" class="mono">
                  {a.source}
                </td>
                <td data-label="Forwards to" class="mono">
                  {a.destination}
                </td>
                <td data-label="Created">
                  <When at={a.createdAt} />
                </td>
                <td>
                  <ConfirmButton
                    label="Delete"
                    question={`Delete the alias ${a.source}?`}
                    detail={`Mail to ${a.source} is no longer forwarded to ${a.destination}.`}
                    confirmLabel="Delete alias"
                    onConfirm={() =>
                      remove(
                        graphql('mutation($id: Int!) { mailAliasDelete(id: $id) { id } }'),
                        a.id,
                        `the alias ${a.source}`,
                      )
                    }
                  />
                </td>
              </tr>
            )}
          </ListTable>
          <p role="status" class="muted">
            {message}
          </p>
          <NewAlias domain={props.domain} onCreated={(source) => changed(`Created the alias ${source}.`)} />
        </>
      )}
    </Section>
  );
}
