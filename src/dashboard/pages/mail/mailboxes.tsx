import { useRef, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { Field, useFormRequest } from '../../field.tsx';
import { When } from '../../format.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../live-query.tsx';
import type { MailDomainRow } from './list.tsx';
import { NewAddressForm, useDomainList } from './shared.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** A domain holds at most 200 mailboxes: one page shows them all. */
const MAILBOXES_QUERY = graphql(
  'query($id: Int!) { mailDomainMailboxes(id: $id, first: 200) { nodes { id address quotaMb usedMb passwordChangedAt createdAt } } }',
);
type MailboxRow = ResultOf<typeof MAILBOXES_QUERY>['mailDomainMailboxes']['nodes'][number];

const CREATE_MUTATION = graphql(`mutation($domainId: Int!, $localPart: String!, $password: String!, $quotaMb: Int) {
  mailboxCreate(domainId: $domainId, localPart: $localPart, password: $password, quotaMb: $quotaMb) { id address }
}`);

/** A mailbox's new password, offered to a password manager as one. */
function PasswordField(props: {
  label: string;
  id: string;
  error?: string;
  value: string;
  onInput(value: string): void;
}) {
  return (
    <Field
      label={props.label}
      id={props.id}
      error={props.error}
      hint="10 to 128 characters; stored hashed, never shown again."
    >
      {(a) => (
        <input
          {...a}
          type="password"
          autoComplete="new-password"
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** The new-mailbox form: address, password and quota; the API's refusal shows beside the field it names. */
function NewMailbox(props: { domain: MailDomainRow; onCreated(address: string): void }) {
  const [localPart, setLocalPart] = useState('');
  const [password, setPassword] = useState('');
  const [quota, setQuota] = useState('');
  const { errors, setErrors, busy, send } = useFormRequest(['localPart', 'password', 'quotaMb']);

  const submit = async (e: Event) => {
    e.preventDefault();
    const quotaText = quota.trim();
    if (quotaText && !/^\d+$/.test(quotaText)) {
      setErrors({ quotaMb: 'Enter the quota as a whole number of MB, such as 2048.' });
      return;
    }
    return send(async () => {
      const r = await gql(CREATE_MUTATION, {
        domainId: props.domain.id,
        localPart,
        password,
        quotaMb: quotaText ? Number(quotaText) : null,
      });
      setLocalPart('');
      setPassword('');
      setQuota('');
      props.onCreated(r.mailboxCreate.address);
    });
  };

  return (
    <NewAddressForm
      title="New mailbox"
      testid="new-mailbox"
      busy={busy}
      onSubmit={submit}
      local={{
        label: 'Mailbox name',
        id: 'mailbox-local',
        domain: props.domain.domain,
        value: localPart,
        error: errors.localPart,
        onInput: setLocalPart,
      }}
      submitLabel="Create mailbox"
      formError={errors.form}
    >
      <PasswordField
        label="Password"
        id="mailbox-password"
        error={errors.password}
        value={password}
        onInput={setPassword}
      />
      <Field label="Quota (MB)" id="mailbox-quota" error={errors.quotaMb} hint="100 to 51200; 1024 when left empty.">
        {(a) => (
          <input
            {...a}
            inputMode="numeric"
            autoComplete="off"
            placeholder="1024"
            value={quota}
            onInput={(e) => setQuota(e.currentTarget.value)}
          />
        )}
      </Field>
    </NewAddressForm>
  );
}

/** A dialog that sets a mailbox's password; it closes once the API has taken it. */
function SetPassword(props: { mailbox: MailboxRow; onDone(message: string): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [password, setPassword] = useState('');
  const { errors, setErrors, busy, send } = useFormRequest(['password']);
  const headingId = `set-password-${props.mailbox.id}`;
  const submit = (e: Event) => {
    e.preventDefault();
    return send(async () => {
      await gql(
        graphql('mutation($id: Int!, $password: String!) { mailboxPasswordSet(id: $id, password: $password) { id } }'),
        {
          id: props.mailbox.id,
          password,
        },
      );
      setPassword('');
      dialog.current?.close();
      props.onDone(`New password set for ${props.mailbox.address}.`);
    });
  };
  return (
    <>
      <button
        type="button"
        onClick={() => {
          // Each opening starts empty: nothing typed or refused before is kept.
          setPassword('');
          setErrors({});
          dialog.current?.showModal();
        }}
      >
        Set password
      </button>
      <dialog ref={dialog} class="confirm" aria-labelledby={headingId}>
        <form onSubmit={submit} noValidate aria-busy={busy}>
          <h2 id={headingId}>Set the password of {props.mailbox.address}</h2>
          <PasswordField
            label="New password"
            id={`${headingId}-input`}
            error={errors.password ?? errors.form}
            value={password}
            onInput={setPassword}
          />
          <div class="actions">
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Set password'}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** The mailboxes of a mail domain: the list with its actions, and the form that adds one. */
export function Mailboxes(props: { domain: MailDomainRow; onChange(): void }) {
  const { state, message, changed, remove } = useDomainList(MAILBOXES_QUERY, props.domain.id, props.onChange);
  return (
    <Section title="Mailboxes" testid="mailboxes" state={state}>
      {({ mailDomainMailboxes: { nodes } }) => (
        <>
          <ListTable
            rows={nodes}
            empty="No mailboxes yet."
            columns={['Address', 'Used / quota', 'Password set']}
            actions
            stack
          >
            {(m) => (
              <tr key={m.id} data-testid={`mailbox-${m.address}`}>
                <td data-label="Address" class="mono">
                  {m.address}
                </td>
                <td data-label="Used / quota">
                  {m.usedMb} / {m.quotaMb} MB
                </td>
                <td data-label="Password set">
                  <When at={m.passwordChangedAt} />
                </td>
                <td>
                  <span class="actions">
                    <SetPassword mailbox={m} onDone={changed} />
                    <ConfirmButton
                      label="Delete"
                      question={`Delete ${m.address}?`}
                      detail="The mailbox and all of its mail are deleted permanently."
                      confirmLabel="Delete mailbox"
                      onConfirm={() =>
                        remove(graphql('mutation($id: Int!) { mailboxDelete(id: $id) { id } }'), m.id, m.address)
                      }
                    />
                  </span>
                </td>
              </tr>
            )}
          </ListTable>
          <p role="status" class="muted">
            {message}
          </p>
          <NewMailbox domain={props.domain} onCreated={(address) => changed(`Created ${address}.`)} />
        </>
      )}
    </Section>
  );
}
