import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { navigate, BackLink, PageFailed } from '../../router.tsx';
import { Aliases } from './aliases.tsx';
import { DnsRecords } from './dns-records.tsx';
import { MAIL_DOMAINS_QUERY, type MailDomainRow } from './list.tsx';
import { Mailboxes } from './mailboxes.tsx';
import { MAIL_EVENTS } from './shared.tsx';
import { graphql } from '../../graphql.ts';

/** "1 mailbox", "3 aliases": both words take -es. */
const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 'es'}`;

/** Disabling mail removes the domain with every mailbox (and its mail) and alias: confirmed first. */
function DisableMail(props: { domain: MailDomainRow }) {
  const [state, setState] = useState<{ busy?: boolean; error?: string }>({});
  const { domain, mailboxCount, aliasCount } = props.domain;
  const disable = async () => {
    setState({ busy: true });
    try {
      await gql(graphql('mutation($id: Int!) { mailDomainDisable(id: $id) { id } }'), { id: props.domain.id });
      navigate('/mail');
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  return (
    <section class="card" data-testid="disable-mail">
      <h2>Disable mail</h2>
      <p class="muted">Mail to {domain} stops being accepted; its mailboxes, their mail and its aliases are deleted.</p>
      <div class="actions">
        <ConfirmButton
          label="Disable mail"
          question={`Disable mail for ${domain}?`}
          detail={`${count(mailboxCount, 'mailbox')} with all their mail and ${count(aliasCount, 'alias')} are removed permanently.`}
          confirmLabel="Disable mail"
          onConfirm={disable}
          disabledReason={state.busy ? 'Disabling mail…' : null}
        />
      </div>
      <p role="status" class={state.error ? 'error' : 'muted'}>
        {state.error ?? (state.busy ? 'Disabling mail…' : '')}
      </p>
    </section>
  );
}

/** /mail/:id: one mail domain: the DNS records to publish, its mailboxes and aliases, and disabling it. */
export function MailDomainPage(props: { id: string }) {
  // Bumped after a mailbox or alias changes here, so the counts are true before the event arrives.
  const [reload, setReload] = useState(0);
  const changed = () => setReload((n) => n + 1);
  const state = useLive(MAIL_DOMAINS_QUERY, MAIL_EVENTS, undefined, reload);
  const back = <BackLink href="/mail" label="Mail" />;
  if (state.error) return <PageFailed back={back} title="Mail domain" error={state.error} />;
  if (!state.data) return <p class="muted">Loading…</p>;
  const d = state.data.mailDomains.nodes.find((x) => String(x.id) === props.id);
  if (!d)
    return (
      <div>
        {back}
        <h1>Mail domain not found</h1>
        <p>This account has no mail domain {props.id}: it may have been disabled.</p>
      </div>
    );
  return (
    <div>
      {back}
      <h1>
        {d.domain} <StatusBadge status={d.status} />
      </h1>
      <section class="card">
        <dl class="facts">
          <dt>Mailboxes</dt>
          <dd data-testid="mailbox-count">{d.mailboxCount}</dd>
          <dt>Aliases</dt>
          <dd data-testid="alias-count">{d.aliasCount}</dd>
          <dt>Enabled</dt>
          <dd>
            <When at={d.createdAt} />
          </dd>
        </dl>
      </section>
      <DnsRecords domain={d.domain} />
      <Mailboxes domain={d} onChange={changed} />
      <Aliases domain={d} onChange={changed} />
      <DisableMail domain={d} />
    </div>
  );
}
