import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  batchedConnection,
  batchedOne,
  connectionAfter,
  connectionArgs,
  connectionType,
  edge,
} from '../../schema/graph.ts';
import { MailAlias, MailDomain, Mailbox } from './schema.ts';
import { aliasesOfDomains, listMailDomains, mailboxesOfDomains, mailDomainsByIds } from './service.ts';

// Mail in the graph: Account.mailDomains → mailboxes and aliases, and back to the domain.
// Mail ids are integers per kind (as REST has them), so mail resources are not Nodes: an id alone
// cannot say which kind it names.

const MailboxConnection = connectionType('Mailbox', Mailbox);
const MailAliasConnection = connectionType('MailAlias', MailAlias);

accountListEdge('mailDomains', 'mail:read', MailDomain, 'Domains with email hosting, newest first.', (ctx, page) =>
  listMailDomains(ctx.db, page),
);

builder.objectField(MailDomain, 'mailboxes', (t) =>
  t.field({
    ...edge('mail:read'),
    type: MailboxConnection,
    description: 'The mailboxes of the domain, newest first.',
    args: connectionArgs(t),
    resolve: (d, args, ctx) =>
      batchedConnection(
        ctx,
        'MailDomain.mailboxes',
        d.id,
        { ...args, after: connectionAfter(args, 'int') },
        (ids, after) => mailboxesOfDomains(ctx.db, ids, after),
        (m) => m.domain_id,
      ),
  }),
);

builder.objectField(MailDomain, 'aliases', (t) =>
  t.field({
    ...edge('mail:read'),
    type: MailAliasConnection,
    description: 'The forwarding aliases of the domain, newest first.',
    args: connectionArgs(t),
    resolve: (d, args, ctx) =>
      batchedConnection(
        ctx,
        'MailDomain.aliases',
        d.id,
        { ...args, after: connectionAfter(args, 'int') },
        (ids, after) => aliasesOfDomains(ctx.db, ids, after),
        (a) => a.domain_id,
      ),
  }),
);

for (const ref of [Mailbox, MailAlias] as const) {
  builder.objectField(ref as typeof Mailbox, 'domain', (t) =>
    t.field({
      ...edge('mail:read'),
      type: MailDomain,
      description: 'The mail domain it belongs to.',
      resolve: (m, _args, ctx) =>
        batchedOne(ctx, 'MailDomain', m.domain_id, (ids) => mailDomainsByIds(ctx.db, ids as number[])),
    }),
  );
}
