import { accountListEdge, nodeKind } from '../../schema/graph.ts';
import { Domain } from './schema.ts';
import { domainsByIds, listDomains } from './service.ts';

accountListEdge('domains', 'domains:read', Domain, 'Registered domains, newest first.', (ctx, page) =>
  listDomains(ctx.db, page),
);

nodeKind({ prefix: 'dom', typename: 'Domain', scope: 'domains:read', load: (ctx, ids) => domainsByIds(ctx.db, ids) });
