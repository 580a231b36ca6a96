import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { DNS_RECORD_TYPES, type mailSetup, type DnsRecord } from './setup.ts';

// The types of GET /mail/setup: the DNS records to publish and the settings a mail client needs.

const DnsRecordType = builder.objectRef<DnsRecord>('MailDnsRecord').implement({
  description: 'A DNS record to publish in the domain zone.',
  fields: (t) => ({
    type: t.exposeString('type', { ...values(DNS_RECORD_TYPES), description: 'MX, A, TXT, CNAME or SRV.' }),
    name: t.exposeString('name', { description: 'The record name (owner).', ...example('example.com') }),
    value: t.exposeString('value', {
      ...example('mail.example.com'),
      description: 'SRV values are "priority weight port target".',
    }),
    priority: t.exposeInt('priority', { nullable: true, ...example(10), description: 'MX preference.' }),
    ttl: t.exposeInt('ttl', { description: 'Time to live in seconds.', ...example(3600) }),
  }),
});

type Setup = Awaited<ReturnType<typeof mailSetup>>;
const Ports = builder.objectRef<Setup['client']['ports']>('MailClientPorts').implement({
  description: 'The port of each protocol.',
  fields: (t) => ({
    imap: t.exposeInt('imap', { description: 'IMAP (incoming).', ...example(993) }),
    pop3: t.exposeInt('pop3', { description: 'POP3 (incoming).', ...example(995) }),
    smtp: t.exposeInt('smtp', { description: 'SMTP (outgoing), implicit TLS.', ...example(465) }),
    submission: t.exposeInt('submission', { description: 'SMTP submission (outgoing), STARTTLS.', ...example(587) }),
  }),
});
const Security = builder.objectRef<Setup['client']['security']>('MailClientSecurity').implement({
  description: 'The connection security of each protocol.',
  fields: (t) => ({
    imap: t.exposeString('imap', { description: 'For IMAP.', ...example('SSL/TLS') }),
    pop3: t.exposeString('pop3', { description: 'For POP3.', ...example('SSL/TLS') }),
    smtp: t.exposeString('smtp', { description: 'For SMTP.', ...example('SSL/TLS') }),
    submission: t.exposeString('submission', { description: 'For submission.', ...example('STARTTLS') }),
  }),
});
const Client = builder.objectRef<Setup['client']>('MailClientSettings').implement({
  description: 'Settings for mail programs. Use host: it is the only name on the TLS certificate.',
  fields: (t) => ({
    host: t.exposeString('host', { description: 'Server name for IMAP, POP3 and SMTP.' }),
    username: t.exposeString('username', {
      description: 'What to sign in with.',
      ...example('the full e-mail address'),
    }),
    ports: t.field({ type: Ports, description: 'Port of each protocol.', resolve: (c) => c.ports }),
    security: t.field({
      type: Security,
      description: 'Connection security of each protocol.',
      resolve: (c) => c.security,
    }),
  }),
});
export const MailSetup = builder.objectRef<Setup>('MailSetup').implement({
  description: 'DNS records and client settings for email hosting.',
  restCase: 'snake',
  fields: (t) => ({
    domain: t.exposeString('domain', { nullable: true, description: 'The mail domain asked for; null without one.' }),
    records: t.field({
      type: [DnsRecordType],
      description: 'Records to publish in its zone; empty without a domain.',
      resolve: (s) => s.records,
    }),
    mxHost: t.exposeString('mxHost', {
      nullable: true,
      description: 'mail.<domain>; null without a domain.',
    }),
    webmailUrl: t.exposeString('webmailUrl', { description: 'Webmail sign-in page.' }),
    mailIp: t.exposeString('mailIp', { description: 'The address mail.<domain> points to.' }),
    client: t.field({ type: Client, description: 'Settings for mail programs.', resolve: (s) => s.client }),
  }),
});
