import { builder } from '../../schema/builder.ts';
import { accountListEdge, GRAPH_ONLY, nodeKind } from '../../schema/graph.ts';
import { HostingAccount } from './accounts.schema.ts';
import { backupsByIds } from './backups.ts';
import { liveSshSessionsByIds } from './panel.ts';
import { hostingByIds, listHosting, planOf } from './service.ts';

accountListEdge('hostingAccounts', 'hosting:read', HostingAccount, 'Hosting accounts, newest first.', listHosting);

nodeKind({
  prefix: 'hst',
  typename: 'HostingAccount',
  scope: 'hosting:read',
  load: (ctx, ids) => hostingByIds(ctx, ids),
});

// Backups and browser-SSH sessions are control-panel resources: their operations need hosting:manage.
nodeKind({
  prefix: 'hbk',
  typename: 'HostingBackup',
  scope: 'hosting:manage',
  load: (ctx, ids) => backupsByIds(ctx, ids),
});
nodeKind({
  prefix: 'hss',
  typename: 'HostingSshSession',
  scope: 'hosting:manage',
  load: (ctx, ids) => liveSshSessionsByIds(ctx, ids),
});

builder.objectField(HostingAccount, 'phpVersionsOffered', (t) =>
  t.stringList({
    extensions: GRAPH_ONLY,
    description: "The PHP versions the account's plan offers, any of which hostingPhpVersionSet takes (GraphQL only).",
    resolve: async (h, _args, ctx) => (await planOf(ctx.db, h)).phpVersions,
  }),
);
