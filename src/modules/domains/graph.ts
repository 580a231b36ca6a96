import { accountListEdge } from '../../schema/graph.ts';
import { Domain } from './schema.ts';
import { listDomains } from './service.ts';

accountListEdge('domains', 'domains:read', Domain, 'Registered domains, newest first.', (ctx, page) =>
  listDomains(ctx.db, page),
);
