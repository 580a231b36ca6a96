import { builder } from '../../schema/builder.ts';
import { connectionArgs, connectionOfPage, connectionType, edge, nodeKind, pageSize } from '../../schema/graph.ts';
import { Domain } from './schema.ts';
import { domainsByIds, listDomains } from './service.ts';

const DomainConnection = connectionType('Domain', Domain);

builder.prismaObjectField('Account', 'domains', (t) =>
  t.field({
    ...edge('domains:read'),
    type: DomainConnection,
    description: 'Registered domains, newest first.',
    args: connectionArgs(t),
    resolve: async (_a, args, ctx) => connectionOfPage(await listDomains(ctx.db, { limit: pageSize(args), cursor: args.after })),
  }),
);

nodeKind({ prefix: 'dom', typename: 'Domain', scope: 'domains:read', load: (ctx, ids) => domainsByIds(ctx.db, ids) });
