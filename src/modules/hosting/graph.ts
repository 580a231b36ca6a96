import { builder } from '../../schema/builder.ts';
import { connectionArgs, connectionOfPage, connectionType, edge, nodeKind, pageSize } from '../../schema/graph.ts';
import { HostingAccount } from './accounts.schema.ts';
import { hostingByIds, listHosting } from './service.ts';

const HostingAccountConnection = connectionType('HostingAccount', HostingAccount);

builder.prismaObjectField('Account', 'hostingAccounts', (t) =>
  t.field({
    ...edge('hosting:read'),
    type: HostingAccountConnection,
    description: 'Hosting accounts, newest first.',
    args: connectionArgs(t),
    resolve: async (_a, args, ctx) => connectionOfPage(await listHosting(ctx, { limit: pageSize(args), cursor: args.after })),
  }),
);

nodeKind({ prefix: 'hst', typename: 'HostingAccount', scope: 'hosting:read', load: (ctx, ids) => hostingByIds(ctx, ids) });
