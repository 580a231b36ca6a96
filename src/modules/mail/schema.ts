import { z } from 'zod';
import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { dnsName } from '../../core/input-schemas.ts';
import { pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import {
  type aliasView,
  createAlias,
  createMailbox,
  deleteAlias,
  deleteMailbox,
  disableMailDomain,
  enableMailDomain,
  listAliases,
  listMailboxes,
  listMailDomains,
  type mailboxView,
  type mailDomainView,
  MAIL_RULES,
  QUOTA_DEFAULT_MB,
  QUOTA_MAX_MB,
  QUOTA_MIN_MB,
  setMailboxPassword,
  quoteMailLoss,
} from './service.ts';
import { mailSetup } from './setup.ts';
import { MailSetup } from './setup.schema.ts';
import { mailArea } from './manifest.ts';

const op = operationsOf(mailArea);

// REST speaks the spec's snake_case here (`restCase: 'snake'` on each type and write); integer ids.

export const MailDomain = builder.objectRef<ReturnType<typeof mailDomainView>>('MailDomain').implement({
  description: 'A domain with email hosting enabled.',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The mail domain id.' }),
    domain: t.exposeString('domain', { description: 'The domain.' }),
    status: t.exposeString('status', { ...values(['active']), description: 'active (a disabled domain is removed).' }),
    mailboxCount: t.exposeInt('mailboxCount', { description: 'Mailboxes on it.' }),
    aliasCount: t.exposeInt('aliasCount', { description: 'Aliases on it.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When email hosting was enabled.',
    }),
  }),
});

export const Mailbox = builder.objectRef<ReturnType<typeof mailboxView>>('Mailbox').implement({
  description: 'A mailbox. Its password is stored only as a hash and never returned.',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The mailbox id.' }),
    domainId: t.exposeInt('domainId', { description: 'Its mail domain.' }),
    localPart: t.exposeString('localPart', { description: 'The part before @.' }),
    address: t.exposeString('address', { description: 'The full e-mail address.', ...example('ada@example.com') }),
    quotaMb: t.exposeInt('quotaMb', { description: 'Storage quota in MB.' }),
    usedMb: t.exposeInt('usedMb', { description: 'Storage used in MB.' }),
    passwordChangedAt: t.expose('passwordChangedAt', {
      type: 'DateTime',
      description: 'When its password was last set.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was created.',
    }),
  }),
});

export const MailAlias = builder.objectRef<ReturnType<typeof aliasView>>('MailAlias').implement({
  description: 'A forwarding alias: mail to source is forwarded to destination.',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The alias id.' }),
    domainId: t.exposeInt('domainId', { description: 'Its mail domain.' }),
    sourceLocal: t.exposeString('sourceLocal', {
      description: 'The part before @ of the alias address.',
    }),
    source: t.exposeString('source', {
      description: 'The alias address: <source_local>@<domain>.',
      ...example('sales@example.com'),
    }),
    destination: t.exposeString('destination', { description: 'The address its mail is forwarded to.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was created.',
    }),
  }),
});

const MailDomainConnection = listConnection(MailDomain);
const MailboxConnection = listConnection(Mailbox);
const MailAliasConnection = listConnection(MailAlias);

const MailDomainDeleted = builder
  .objectRef<Awaited<ReturnType<typeof disableMailDomain>>>('MailDomainDisabled')
  .implement({
    description: 'A domain whose email hosting was disabled, with what was removed.',
    restCase: 'snake',
    fields: (t) => ({
      id: t.exposeInt('id', { description: 'The mail domain id.' }),
      domain: t.exposeString('domain', { description: 'The domain.' }),
      deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
      mailboxesRemoved: t.exposeInt('mailboxesRemoved', {
        description: 'Mailboxes removed with their mail.',
      }),
      aliasesRemoved: t.exposeInt('aliasesRemoved', { description: 'Aliases removed.' }),
    }),
  });

const MailDeleted = builder.objectRef<{ id: number; deleted: boolean }>('MailDeleted').implement({
  description: 'A mailbox or alias that was deleted.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The mailbox or alias id.' }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
  }),
});

builder.queryField('mailSetup', (t) =>
  t.field({
    ...op({
      summary: 'Get mail setup',
      scope: 'mail:read',
      rest: 'GET /mail/setup',
      description:
        'The DNS records a mail domain needs (MX, SPF, DKIM, DMARC), the webmail URL and the IMAP, POP3 and SMTP settings for mail programs. Without domain, only the settings.',
    }),
    type: MailSetup,
    args: {
      domain: t.arg.string({
        required: false,
        description: 'One of your mail domains; without it no records and no mx_host.',
        ...inputSchema(dnsName('domain')),
      }),
    },
    resolve: (_root, args, ctx) => mailSetup(ctx.db, args.domain),
  }),
);

pagedListQuery({
  name: 'mailDomains',
  type: MailDomainConnection,
  list: (ctx, args) => listMailDomains(ctx.db, args),
  operation: op({
    summary: 'List mail domains',
    scope: 'mail:read',
    rest: 'GET /mail/domains',
    toolVerb: 'list',
    description: 'The domains with email hosting enabled, with mailbox and alias counts, newest first.',
  }),
});

builder.mutationField('mailDomainEnable', (t) =>
  t.field({
    ...op({
      summary: 'Enable email hosting',
      scope: 'mail:write',
      rest: 'POST /mail/domains',
      description:
        'Enable email hosting for a domain; then create its mailboxes and publish the DNS records of GET /mail/setup. A domain not registered in this account needs the ownership TXT record the refusal names first. At most 50 mail domains per account; 400 when the domain is hosted already.',
      fires: ['mail.domain.enabled'],
    }),
    type: MailDomain,
    args: {
      domain: t.arg.string({
        required: true,
        description: 'A domain name such as example.com.',
        ...inputSchema(dnsName('domain')),
      }),
    },
    resolve: (_root, args, ctx) => enableMailDomain(ctx, args),
  }),
);

builder.mutationField('mailDomainDisable', (t) =>
  t.field({
    ...op({
      summary: 'Disable email hosting',
      scope: 'mail:write',
      rest: 'DELETE /mail/domains/:id',
      consequence: { kind: 'destroys', quote: (ctx, a) => quoteMailLoss(ctx.db, 'domain', Number(a.id)) },
      description:
        'Disable email hosting for a domain: its mailboxes, their mail and its aliases are removed permanently.',
      fires: ['mail.domain.disabled'],
    }),
    type: MailDomainDeleted,
    args: { id: t.arg.int({ required: true, description: 'The mail domain id.' }) },
    resolve: (_root, args, ctx) => disableMailDomain(ctx, args.id),
  }),
);

pagedListQuery<{ id: number }>({
  name: 'mailDomainMailboxes',
  type: MailboxConnection,
  list: (ctx, args) => listMailboxes(ctx.db, args, args.id),
  operation: op({
    summary: 'List domain mailboxes',
    scope: 'mail:read',
    rest: 'GET /mail/domains/:id/mailboxes',
    toolVerb: 'list',
    description: 'The mailboxes of one mail domain, newest first.',
  }),
  args: (t) => ({ id: t.arg.int({ required: true, description: 'The mail domain id.' }) }),
});

pagedListQuery<{ id: number }>({
  name: 'mailDomainAliases',
  type: MailAliasConnection,
  list: (ctx, args) => listAliases(ctx.db, args.id, args),
  operation: op({
    summary: 'List aliases',
    scope: 'mail:read',
    rest: 'GET /mail/domains/:id/aliases',
    toolVerb: 'list',
    description: 'The forwarding aliases of one mail domain, newest first.',
  }),
  args: (t) => ({ id: t.arg.int({ required: true, description: 'The mail domain id.' }) }),
});

pagedListQuery({
  name: 'mailboxes',
  type: MailboxConnection,
  list: (ctx, args) => listMailboxes(ctx.db, args),
  operation: op({
    summary: 'List all mailboxes',
    scope: 'mail:read',
    rest: 'GET /mail/mailboxes',
    toolVerb: 'list',
    description: 'The mailboxes of every mail domain, newest first.',
  }),
});

builder.mutationField('mailboxCreate', (t) =>
  t.field({
    ...op({
      summary: 'Create a mailbox',
      scope: 'mail:write',
      rest: 'POST /mail/mailboxes',
      description:
        "Create a mailbox on one of the account's mail domains. At most 200 per domain; 400 when the address is already a mailbox or an alias.",
      fires: ['mail.mailbox.created'],
    }),
    type: Mailbox,
    restCase: 'snake',
    args: {
      domainId: t.arg.int({
        required: true,
        description: 'The mail domain id, from GET /mail/domains.',
      }),
      localPart: t.arg.string({
        required: true,
        description: 'The part before @: 1 to 64 of letters, digits, . _ - +.',
        ...inputSchema(MAIL_RULES.localPart),
      }),
      password: t.arg.string({
        required: true,
        description: 'Stored hashed, never returned.',
        ...inputSchema(MAIL_RULES.password),
      }),
      quotaMb: t.arg.int({
        required: false,
        description: `Default ${QUOTA_DEFAULT_MB}.`,
        ...inputSchema(z.number().min(QUOTA_MIN_MB).max(QUOTA_MAX_MB)),
      }),
    },
    resolve: (_root, args, ctx) => createMailbox(ctx, args),
  }),
);

builder.mutationField('mailboxPasswordSet', (t) =>
  t.field({
    ...op({
      summary: 'Set a mailbox password',
      scope: 'mail:write',
      rest: 'PATCH /mail/mailboxes/:id/password',
      description: 'Set a new password on a mailbox; it is stored hashed and never returned.',
      fires: ['mail.mailbox.password.changed'],
    }),
    type: Mailbox,
    args: {
      id: t.arg.int({ required: true, description: 'The mailbox id.' }),
      password: t.arg.string({
        required: true,
        description: 'The new password; stored hashed, never returned.',
        ...inputSchema(MAIL_RULES.password),
      }),
    },
    resolve: (_root, args, ctx) => setMailboxPassword(ctx, args.id, args),
  }),
);

builder.mutationField('mailboxDelete', (t) =>
  t.field({
    ...op({
      summary: 'Delete a mailbox',
      scope: 'mail:write',
      rest: 'DELETE /mail/mailboxes/:id',
      consequence: { kind: 'destroys', quote: (ctx, a) => quoteMailLoss(ctx.db, 'mailbox', Number(a.id)) },
      description: 'Delete a mailbox and all of its mail, permanently.',
      fires: ['mail.mailbox.deleted'],
    }),
    type: MailDeleted,
    args: { id: t.arg.int({ required: true, description: 'The mailbox id.' }) },
    resolve: (_root, args, ctx) => deleteMailbox(ctx, args.id),
  }),
);

builder.mutationField('mailAliasCreate', (t) =>
  t.field({
    ...op({
      summary: 'Create an alias',
      scope: 'mail:write',
      rest: 'POST /mail/aliases',
      description:
        'Create a forwarding alias: mail to <source_local>@<domain> is forwarded to destination. 400 when the address is already a mailbox or an alias.',
      fires: ['mail.alias.created'],
    }),
    type: MailAlias,
    restCase: 'snake',
    args: {
      domainId: t.arg.int({
        required: true,
        description: 'The mail domain id, from GET /mail/domains.',
      }),
      sourceLocal: t.arg.string({
        required: true,
        description: 'The part before @ of the alias address.',
        ...inputSchema(MAIL_RULES.localPart),
      }),
      destination: t.arg.string({
        required: true,
        description: 'The e-mail address mail is forwarded to.',
        ...inputSchema(MAIL_RULES.address),
      }),
    },
    resolve: (_root, args, ctx) => createAlias(ctx, args),
  }),
);

builder.mutationField('mailAliasDelete', (t) =>
  t.field({
    ...op({
      summary: 'Delete an alias',
      scope: 'mail:write',
      rest: 'DELETE /mail/aliases/:id',
      consequence: { kind: 'destroys', quote: (ctx, a) => quoteMailLoss(ctx.db, 'alias', Number(a.id)) },
      description: 'Remove a forwarding alias.',
      fires: ['mail.alias.deleted'],
    }),
    type: MailDeleted,
    args: { id: t.arg.int({ required: true, description: 'The alias id.' }) },
    resolve: (_root, args, ctx) => deleteAlias(ctx, args.id),
  }),
);
