import type { TenantDb } from '../../db/tenant.ts';
import { notFound } from '../../errors.ts';
import { mailBackend } from '../../provider/mail.ts';
import { normalDnsName } from '../../core/input-schemas.ts';

export const DNS_RECORD_TYPES = ['MX', 'A', 'TXT', 'CNAME', 'SRV'] as const;

const RECORD_TTL = 3600;

export interface DnsRecord {
  type: (typeof DNS_RECORD_TYPES)[number];
  name: string;
  value: string;
  priority: number | null;
  ttl: number;
}

/** The client block: mail programs must use `host` (the only name on the TLS certificate). */
function clientBlock() {
  const host = mailBackend.platform.clientHost;
  return {
    host,
    username: 'the full e-mail address',
    ports: { imap: 993, pop3: 995, smtp: 465, submission: 587 },
    security: { imap: 'SSL/TLS', pop3: 'SSL/TLS', smtp: 'SSL/TLS', submission: 'STARTTLS' },
  };
}

/** The DNS records a hosted domain needs: MX, the MX host's A, SPF, DKIM, DMARC, autodiscover/autoconfig and RFC 6186 SRV. */
function composeRecords(domain: string, dkim: { selector: string; publicKey: string }): DnsRecord[] {
  const p = mailBackend.platform;
  const r = (type: DnsRecord['type'], name: string, value: string, priority: number | null = null): DnsRecord => ({
    type,
    name,
    value,
    priority,
    ttl: RECORD_TTL,
  });
  return [
    r('MX', domain, `mail.${domain}`, 10),
    r('A', `mail.${domain}`, p.mailIp),
    r('TXT', domain, `v=spf1 mx include:${p.spfInclude} ~all`),
    r('TXT', `${dkim.selector}._domainkey.${domain}`, `v=DKIM1; k=rsa; p=${dkim.publicKey}`),
    r('TXT', `_dmarc.${domain}`, `v=DMARC1; p=none; rua=mailto:postmaster@${domain}`),
    r('CNAME', `autodiscover.${domain}`, p.clientHost),
    r('CNAME', `autoconfig.${domain}`, p.clientHost),
    r('SRV', `_imaps._tcp.${domain}`, `0 1 993 ${p.clientHost}`),
    r('SRV', `_pop3s._tcp.${domain}`, `10 1 995 ${p.clientHost}`),
    r('SRV', `_submissions._tcp.${domain}`, `0 1 465 ${p.clientHost}`),
    r('SRV', `_submission._tcp.${domain}`, `10 1 587 ${p.clientHost}`),
  ];
}

/**
 * GET /mail/setup. With `domain` (one of the account's mail domains, else 404): the records
 * composed for that zone and mx_host mail.<domain>. Without: no records and no fixed mx_host
 * (revision 1.14); webmail_url, mail_ip and the client block either way.
 */
export async function mailSetup(db: TenantDb, domainInput: string | null | undefined) {
  const p = mailBackend.platform;
  const base = { webmailUrl: p.webmailUrl, mailIp: p.mailIp, client: clientBlock() };
  if (domainInput === undefined || domainInput === null) return { domain: null, records: [], mxHost: null, ...base };
  const domain = normalDnsName(domainInput);
  const row = await db.mailDomain.findFirst({ where: { domain } });
  if (!row) throw notFound('Mail domain');
  return {
    domain,
    records: composeRecords(domain, { selector: row.dkimSelector, publicKey: row.dkimPublicKey }),
    mxHost: `mail.${domain}`,
    ...base,
  };
}
