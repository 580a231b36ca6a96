import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { Field, FormAlert } from '../../field.tsx';
import { useLive } from '../../live-query.tsx';
import type { TadaDocumentNode } from '../../graphql.ts';

/** What mail pages re-read on: every mail change, made here or elsewhere (another tab, a key, MCP). */
export const MAIL_EVENTS = ['mail.'];

/**
 * A list of one mail domain (its mailboxes or aliases), read again on each mail event and at once
 * after a change made here, with the status line that says what was done.
 */
export function useDomainList<T>(query: TadaDocumentNode<T, { id: number }>, domainId: number, onChange: () => void) {
  const [reload, setReload] = useState(0);
  const [message, setMessage] = useState('');
  const state = useLive(query, MAIL_EVENTS, { id: domainId }, reload);
  const changed = (text: string) => {
    setMessage(text);
    setReload((n) => n + 1);
    onChange();
  };
  /** Deletes by `mutation` (which takes `$id: Int!`), saying so in the status line. */
  const remove = async (mutation: TadaDocumentNode<unknown, { id: number }>, id: number, what: string) => {
    setMessage(`Deleting ${what}…`);
    try {
      await gql(mutation, { id });
      changed(`Deleted ${what}.`);
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  return { state, message, changed, remove };
}

/** The part before @ of an address on the domain, the domain shown after the input. */
function LocalPartField(props: {
  label: string;
  id: string;
  domain: string;
  value: string;
  error?: string;
  onInput(value: string): void;
}) {
  return (
    <Field label={props.label} id={props.id} error={props.error} hint={`The part before @${props.domain}.`}>
      {(a) => (
        <span class="suffix">
          <input
            {...a}
            value={props.value}
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => props.onInput(e.currentTarget.value)}
          />
          <span aria-hidden="true">@{props.domain}</span>
        </span>
      )}
    </Field>
  );
}

/**
 * The form that adds an address on a mail domain (a mailbox or an alias): its local part first,
 * then the fields in `children`, the submit button, and a refusal that names none of them.
 */
export function NewAddressForm(props: {
  title: string;
  testid: string;
  busy: boolean;
  onSubmit(e: Event): void;
  local: { label: string; id: string; domain: string; value: string; error?: string; onInput(value: string): void };
  submitLabel: string;
  formError?: string;
  children: ComponentChildren;
}) {
  return (
    <form onSubmit={props.onSubmit} noValidate aria-busy={props.busy} data-testid={props.testid}>
      <h3>{props.title}</h3>
      <div class="fields">
        <LocalPartField {...props.local} />
        {props.children}
      </div>
      <button type="submit" disabled={props.busy}>
        {props.busy ? 'Creating…' : props.submitLabel}
      </button>
      <FormAlert error={props.formError} />
    </form>
  );
}
