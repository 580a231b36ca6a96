import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { Field, FormAlert, useFormRequest } from '../../field.tsx';
import { graphql } from '../../graphql.ts';

const CHANGE = graphql(`mutation($current: String!, $next: String!) {
  accountPasswordChange(currentPassword: $current, newPassword: $next) { sessionsEnded }
}`);

const FIELDS = ['currentPassword', 'newPassword', 'repeat'] as const;
const MIN = 10;

/** A new password, given the current one; every other session of the account is signed out. */
export function PasswordForm(props: { onChanged(): void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState('');
  const { errors, setErrors, busy, send } = useFormRequest(FIELDS);

  const submit = (e: Event) => {
    e.preventDefault();
    setDone('');
    if (next !== repeat) return setErrors({ repeat: 'The two new passwords differ.' });
    void send(async () => {
      const { accountPasswordChange } = await gql(CHANGE, {
        current,
        next,
      });
      setCurrent('');
      setNext('');
      setRepeat('');
      const n = accountPasswordChange.sessionsEnded;
      setDone(
        `Password changed. ${n === 0 ? 'No other session was signed in.' : `${n} other session${n === 1 ? ' was' : 's were'} signed out.`}`,
      );
      props.onChanged();
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <div class="fields">
        <Field label="Current password" id="password-current" error={errors.currentPassword}>
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="current-password"
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          label="New password"
          id="password-new"
          error={errors.newPassword}
          hint={`At least ${MIN} characters; a few words are easy to type and hard to guess.`}
        >
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="new-password"
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="New password again" id="password-repeat" error={errors.repeat}>
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="new-password"
              value={repeat}
              onInput={(e) => setRepeat(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <p class="muted small">
        Every other signed-in session ends; this one stays. API keys and connected apps keep working.
      </p>
      <FormAlert error={errors.form} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
      <p role="status" class="ok">
        {done}
      </p>
    </form>
  );
}
