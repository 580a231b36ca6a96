import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  connectionAfter,
  connectionArgs,
  connectionsByParent,
  connectionType,
  edge,
  LOADER_OPTIONS,
  pageSize,
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
  t.loadable({
    ...edge('mail:read'),
    type: MailboxConnection,
    description: 'The mailboxes of the domain, newest first.',
    args: connectionArgs(t),
    // One loader per place in the query (its arguments are that place's): one statement per level.
    byPath: true,
    loaderOptions: LOADER_OPTIONS,
    resolve: (d) => d.id,
    load: async (ids: number[], ctx, args) => {
      const first = pageSize(args);
      const rows = await mailboxesOfDomains(ctx.db, ids, connectionAfter(args, 'int'));
      return connectionsByParent(ids, rows, first, (m) => m.domainId, args.after);
    },
  }),
);

builder.objectField(MailDomain, 'aliases', (t) =>
  t.loadable({
    ...edge('mail:read'),
    type: MailAliasConnection,
    description: 'The forwarding aliases of the domain, newest first.',
    args: connectionArgs(t),
    byPath: true,
    loaderOptions: LOADER_OPTIONS,
    resolve: (d) => d.id,
    load: async (ids: number[], ctx, args) => {
      const first = pageSize(args);
      const rows = await aliasesOfDomains(ctx.db, ids, connectionAfter(args, 'int'));
      return connectionsByParent(ids, rows, first, (a) => a.domainId, args.after);
    },
  }),
);

for (const ref of [Mailbox, MailAlias] as const) {
  builder.objectField(ref as typeof Mailbox, 'domain', (t) =>
    t.loadable({
      ...edge('mail:read'),
      type: MailDomain,
      description: 'The mail domain it belongs to.',
      loaderOptions: LOADER_OPTIONS,
      // Rows in any order, matched to the ids by id; null where not visible.
      sort: (d) => d.id,
      resolve: (m) => m.domainId,
      load: (ids, ctx) => mailDomainsByIds(ctx.db, ids),
    }),
  );
}
