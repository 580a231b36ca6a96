import { builder } from '../../schema/builder.ts';
import { accountListEdge, GRAPH_ONLY } from '../../schema/graph.ts';
import { HostingAccount } from './accounts.schema.ts';
import { listHosting, planOf } from './service.ts';

accountListEdge('hostingAccounts', 'hosting:read', HostingAccount, 'Hosting accounts, newest first.', listHosting);

// Backups and browser-SSH sessions are control-panel resources: their operations need hosting:manage.

builder.objectField(HostingAccount, 'phpVersionsOffered', (t) =>
  t.stringList({
    extensions: GRAPH_ONLY,
    description: "The PHP versions the account's plan offers, any of which hostingPhpVersionSet takes (GraphQL only).",
    resolve: async (h, _args, ctx) => (await planOf(ctx.db, h)).phpVersions,
  }),
);
