import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { errorsOf, Field, FormAlert, type FormErrors } from '../../field.tsx';
import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { navigate } from '../../router.tsx';
import { Copyable } from '../../copy.tsx';
import { MAIL_EVENTS } from './shared.tsx';
import { ListTable, RowLink } from '../../list-table.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** Every mail domain of the account (at most 50 are allowed, so one page holds them all). */
export const MAIL_DOMAINS_QUERY = graphql(
  '{ mailDomains(first: 100) { nodes { id domain status mailboxCount aliasCount createdAt } } }',
);
export type MailDomainRow = ResultOf<typeof MAIL_DOMAINS_QUERY>['mailDomains']['nodes'][number];

/** The proof the API asks for before it hosts mail for a domain not registered in the account. */
interface TxtProof {
  name: string;
  value: string;
}

/** The TXT record a refusal names ("publish the TXT record "…" at example.org"), if it names one. */
function txtProofIn(message: string): TxtProof | null {
  const m = /TXT record "([^"]+)" at ([^\s,()]+)/.exec(message);
  return m ? { value: m[1], name: m[2].replace(/\.$/, '') } : null;
}

/** The record to publish, each part copyable, and what to do after. */
function TxtProofBox(props: { proof: TxtProof }) {
  return (
    <div class="record-box" role="alert" data-testid="txt-proof">
      <p>
        <strong>Prove that you control {props.proof.name}</strong>: publish this TXT record in its DNS zone, then press
        Enable mail again. (A domain registered in this account needs no proof.)
      </p>
      <dl class="facts">
        <dt>Type</dt>
        <dd>TXT</dd>
        <dt>Name</dt>
        <dd>
          <Copyable value={props.proof.name} what="record name" />
        </dd>
        <dt>Value</dt>
        <dd>
          <Copyable value={props.proof.value} what="record value" />
        </dd>
      </dl>
    </div>
  );
}

/** Enable mail for a domain; on success its page opens (records to publish, mailboxes to create). */
function EnableMail() {
  const [domain, setDomain] = useState('');
  const [errors, setErrors] = useState<FormErrors<'domain'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!domain.trim()) {
      setErrors({ domain: 'Enter a domain name, such as example.com.' });
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const r = await gql(graphql('mutation($domain: String!) { mailDomainEnable(domain: $domain) { id } }'), {
        domain: domain.trim(),
      });
      navigate(`/mail/${r.mailDomainEnable.id}`);
    } catch (err) {
      setErrors(errorsOf(err, ['domain']));
      setBusy(false);
    }
  };

  const proof = errors.domain ? txtProofIn(errors.domain) : null;
  return (
    <form class="card" onSubmit={submit} noValidate aria-busy={busy} data-testid="enable-mail">
      <h2>Enable mail for a domain</h2>
      <Field
        label="Domain"
        id="mail-domain"
        // The proof box says it all; the refusal itself is not repeated above it.
        error={proof ? 'This domain needs proof that you control it (below).' : errors.domain}
        hint="A domain registered in this account is enabled at once; any other needs a TXT record first."
      >
        {(a) => (
          <input
            {...a}
            value={domain}
            autoComplete="off"
            spellcheck={false}
            placeholder="example.com"
            onInput={(e) => setDomain(e.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Enabling…' : 'Enable mail'}
      </button>
      {proof && <TxtProofBox proof={proof} />}
      <FormAlert error={errors.form} />
    </form>
  );
}

/** /mail: the account's mail domains and the form that adds one. */
export function MailDomains() {
  const state = useLive(MAIL_DOMAINS_QUERY, MAIL_EVENTS);
  return (
    <div>
      <h1>Mail</h1>
      <Section title="Mail domains" testid="mail-domains" state={state}>
        {({ mailDomains: { nodes } }) => (
          <ListTable
            rows={nodes}
            empty="No mail domains yet: enable mail for a domain below."
            columns={['Domain', 'Status', 'Mailboxes', 'Aliases', 'Enabled']}
            stack
          >
            {(d) => (
              <tr key={d.id} data-testid={`mail-domain-${d.domain}`}>
                <td data-label="Domain">
                  <RowLink href={`/mail/${d.id}`}>{d.domain}</RowLink>
                </td>
                <td data-label="Status">
                  <StatusBadge status={d.status} />
                </td>
                <td data-label="Mailboxes">{d.mailboxCount}</td>
                <td data-label="Aliases">{d.aliasCount}</td>
                <td data-label="Enabled">
                  <When at={d.createdAt} />
                </td>
              </tr>
            )}
          </ListTable>
        )}
      </Section>
      <EnableMail />
    </div>
  );
}
