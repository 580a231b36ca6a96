import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { Field, FormAlert, useFormRequest, useSeeded } from '../../field.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

export const PROFILE_QUERY = graphql('{ account { name email emailVerified country invoiceEmail } }');
export type Profile = ResultOf<typeof PROFILE_QUERY>['account'];

const UPDATE = graphql(`mutation($name: String, $country: String, $email: String, $invoiceEmail: String) {
  accountUpdate(name: $name, country: $country, email: $email, invoiceEmail: $invoiceEmail) { name email emailVerified country invoiceEmail }
}`);

const PROFILE_FIELDS = ['name', 'country', 'email'] as const;

/** Name, country and sign-in e-mail (a new e-mail asks for the password when it was typed long ago). */
export function ProfileForm(props: { profile: Profile; onSaved(p: Profile): void; passwordSignIn: boolean }) {
  const [name, setName] = useSeeded(props.profile.name);
  const [country, setCountry] = useSeeded(props.profile.country);
  const [email, setEmail] = useSeeded(props.profile.email);
  const [saved, setSaved] = useState('');
  const { errors, busy, send } = useFormRequest(PROFILE_FIELDS);

  const submit = (e: Event) => {
    e.preventDefault();
    setSaved('');
    void send(async () => {
      const changedEmail = email.trim().toLowerCase() !== props.profile.email;
      const { accountUpdate } = await gql(UPDATE, {
        name,
        country,
        ...(changedEmail ? { email } : {}),
      });
      props.onSaved(accountUpdate);
      setName(accountUpdate.name);
      setCountry(accountUpdate.country);
      setEmail(accountUpdate.email);
      setSaved('Profile saved.');
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <div class="fields">
        <Field label="Name" id="profile-name" error={errors.name}>
          {(a) => <input {...a} autoComplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Country" id="profile-country" error={errors.country} hint="Two letters (ISO 3166), e.g. DE.">
          {(a) => (
            <input
              {...a}
              autoComplete="country"
              maxLength={2}
              class="short"
              value={country}
              onInput={(e) => setCountry(e.currentTarget.value.toUpperCase())}
            />
          )}
        </Field>
        <Field
          label="E-mail (sign-in)"
          id="profile-email"
          error={errors.email}
          hint={
            props.passwordSignIn
              ? props.profile.emailVerified
                ? 'Verified.'
                : 'Not verified yet.'
              : 'Sign in with your password to change it.'
          }
        >
          {(a) => (
            <input
              {...a}
              type="email"
              autoComplete="email"
              readOnly={!props.passwordSignIn}
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <FormAlert error={errors.form} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save profile'}
        </button>
      </div>
      <p role="status" class="ok">
        {saved}
      </p>
    </form>
  );
}

const NOTICE_FIELDS = ['invoiceEmail'] as const;

/** Where invoice notices go: another address, or the sign-in e-mail when empty. */
export function NotificationsForm(props: { profile: Profile; onSaved(p: Profile): void }) {
  const [invoiceEmail, setInvoiceEmail] = useSeeded(props.profile.invoiceEmail ?? '');
  const [saved, setSaved] = useState('');
  const { errors, busy, send } = useFormRequest(NOTICE_FIELDS);
  const submit = (e: Event) => {
    e.preventDefault();
    setSaved('');
    void send(async () => {
      const { accountUpdate } = await gql(UPDATE, { invoiceEmail: invoiceEmail.trim() });
      props.onSaved(accountUpdate);
      setInvoiceEmail(accountUpdate.invoiceEmail ?? '');
      setSaved(
        accountUpdate.invoiceEmail
          ? `Invoices go to ${accountUpdate.invoiceEmail}.`
          : 'Invoices go to your sign-in e-mail.',
      );
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <Field
        label="Invoice e-mail"
        id="invoice-email"
        error={errors.invoiceEmail}
        hint={`Where notices of new and paid invoices go. Empty: ${props.profile.email}.`}
      >
        {(a) => (
          <input
            {...a}
            type="email"
            autoComplete="email"
            value={invoiceEmail}
            placeholder={props.profile.email}
            onInput={(e) => setInvoiceEmail(e.currentTarget.value)}
          />
        )}
      </Field>
      <FormAlert error={errors.form} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save invoice e-mail'}
        </button>
      </div>
      <p role="status" class="ok">
        {saved}
      </p>
    </form>
  );
}
