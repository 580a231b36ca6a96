import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { errorsOf, Field, FormAlert, type FormErrors } from '../../field.tsx';
import { navigate, BackLink } from '../../router.tsx';
import { graphql } from '../../graphql.ts';

/** The API's departments and priorities, with the words the form shows. */
const DEPARTMENTS = [
  ['general', 'General'],
  ['technical', 'Technical'],
  ['billing', 'Billing'],
  ['sales', 'Sales'],
  ['abuse', 'Abuse'],
] as const;
const PRIORITIES = [
  ['low', 'Low'],
  ['normal', 'Normal'],
  ['high', 'High'],
  ['urgent', 'Urgent'],
] as const;

const SUBJECT_MAX = 200;
const MESSAGE_MAX = 20_000;

const CREATE_MUTATION =
  graphql(`mutation($subject: String!, $message: String!, $department: String, $priority: String) {
  ticketCreate(subject: $subject, message: $message, department: $department, priority: $priority) { id }
}`);

type Fields = 'subject' | 'message' | 'department' | 'priority';

/** The checks the API makes too, made first so an empty field costs no round trip. */
function check(subject: string, message: string): FormErrors<Fields> {
  const errors: FormErrors<Fields> = {};
  if (!subject.trim()) errors.subject = 'Give the ticket a subject.';
  if (!message.trim()) errors.message = 'Write what you need help with.';
  return errors;
}

/** /tickets/new: open a support ticket; its page opens once it exists. */
export function NewTicket() {
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [department, setDepartment] = useState('general');
  const [priority, setPriority] = useState('normal');
  const [errors, setErrors] = useState<FormErrors<Fields>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const found = check(subject, message);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const r = await gql(CREATE_MUTATION, {
        subject,
        message,
        department,
        priority,
      });
      navigate(`/tickets/${r.ticketCreate.id}`);
    } catch (err) {
      setErrors(errorsOf(err, ['subject', 'message', 'department', 'priority']));
      setBusy(false);
    }
  };

  return (
    <div>
      <BackLink href="/tickets" label="Support" />
      <h1>New ticket</h1>
      <form class="card narrow" onSubmit={submit} noValidate aria-busy={busy} data-testid="new-ticket">
        <Field label="Subject" id="ticket-subject" error={errors.subject} hint={`Up to ${SUBJECT_MAX} characters.`}>
          {(a) => (
            <input
              {...a}
              value={subject}
              maxLength={SUBJECT_MAX}
              autoComplete="off"
              onInput={(e) => setSubject(e.currentTarget.value)}
            />
          )}
        </Field>
        <div class="fields">
          <Field label="Department" id="ticket-department" error={errors.department}>
            {(a) => (
              <select {...a} value={department} onChange={(e) => setDepartment(e.currentTarget.value)}>
                {DEPARTMENTS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Priority" id="ticket-priority" error={errors.priority}>
            {(a) => (
              <select {...a} value={priority} onChange={(e) => setPriority(e.currentTarget.value)}>
                {PRIORITIES.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field
          label="Message"
          id="ticket-message"
          error={errors.message}
          hint="Name the server, domain or invoice it concerns, if any."
        >
          {(a) => (
            <textarea
              {...a}
              rows={8}
              maxLength={MESSAGE_MAX}
              value={message}
              onInput={(e) => setMessage(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormAlert error={errors.form} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Opening…' : 'Open ticket'}
          </button>
        </div>
      </form>
    </div>
  );
}
