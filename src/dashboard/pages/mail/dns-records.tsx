import { Section, useLive } from '../../live-query.tsx';
import { Copyable } from '../../copy.tsx';
import { graphql } from '../../graphql.ts';

const SETUP_QUERY = graphql(`query($domain: String) { mailSetup(domain: $domain) {
  records { type name value priority ttl } webmailUrl
  client { host username ports { imap pop3 smtp submission } security { imap pop3 smtp submission } }
} }`);

/** The records to publish in the domain's zone (each value copyable) and the settings for mail programs. */
export function DnsRecords(props: { domain: string }) {
  const state = useLive(SETUP_QUERY, [], { domain: props.domain });
  return (
    <>
      <Section title="DNS records to publish" testid="dns-records" state={state}>
        {({ mailSetup: { records } }) => (
          <>
            <p class="muted small">
              Add these records to the DNS zone of {props.domain} where its DNS is hosted; mail arrives once the MX
              record is published.
            </p>
            {/* On a phone each record is a card whose long values (a DKIM key) wrap (style.css: table.stack). */}
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Priority</th>
                  <th scope="col">TTL</th>
                </tr>
              </thead>
              <tbody>
                {records.map((r) => (
                  <tr key={`${r.type} ${r.name} ${r.value}`} data-testid="dns-record">
                    <td data-label="Type">{r.type}</td>
                    <td data-label="Name" class="mono dns-name">
                      {r.name}
                    </td>
                    <td data-label="Value">
                      <Copyable value={r.value} what={`${r.type} value for ${r.name}`} />
                    </td>
                    <td data-label="Priority">{r.priority ?? '—'}</td>
                    <td data-label="TTL">{r.ttl}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Section>
      <Section title="Mail programs" testid="mail-client" state={state}>
        {({ mailSetup: { client, webmailUrl } }) => (
          <dl class="facts">
            <dt>Server</dt>
            <dd class="mono">{client.host}</dd>
            <dt>User name</dt>
            <dd>{client.username}</dd>
            <dt>IMAP</dt>
            <dd>
              port {client.ports.imap}, {client.security.imap}
            </dd>
            <dt>POP3</dt>
            <dd>
              port {client.ports.pop3}, {client.security.pop3}
            </dd>
            <dt>SMTP</dt>
            <dd>
              port {client.ports.smtp}, {client.security.smtp}; or {client.ports.submission},{' '}
              {client.security.submission}
            </dd>
            <dt>Webmail</dt>
            <dd>
              <a href={webmailUrl} rel="noopener noreferrer" target="_blank">
                {webmailUrl}
              </a>
            </dd>
          </dl>
        )}
      </Section>
    </>
  );
}
