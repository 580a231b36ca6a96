import { builder } from '../../schema/builder.ts';
import { edge, GRAPH_ONLY } from '../../schema/graph.ts';
import { listApiKeys } from '../auth/service.ts';
import { listGrants } from '../oauth/service.ts';

// The credentials of the account in the graph (GraphQL only: REST has no such operations).
// Both read with account:read; neither carries a secret (keys are stored as hashes).

type Key = Awaited<ReturnType<typeof listApiKeys>>[number];
type Grant = Awaited<ReturnType<typeof listGrants>>[number];

const ApiKey = builder.objectRef<Key>('ApiKey').implement({
  description: 'An API key of the account (its secret is never shown again).',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it.' }),
    scopes: t.exposeStringList('scopes'),
    expiresAt: t.exposeString('expiresAt', { nullable: true }),
    lastUsedAt: t.exposeString('lastUsedAt', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
  }),
});

const ConnectedApp = builder.objectRef<Grant>('ConnectedApp').implement({
  description: 'An OAuth app the account holder connected, with the scopes granted.',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The grant.' }),
    clientId: t.string({ resolve: (g) => g.client.id }),
    name: t.string({ resolve: (g) => g.client.name }),
    redirectHost: t.exposeString('redirectHost', { nullable: true }),
    resource: t.exposeString('resource', { nullable: true }),
    scopes: t.exposeStringList('scopes'),
    lastUsedAt: t.exposeString('lastUsedAt', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
  }),
});

builder.prismaObjectField('Account', 'apiKeys', (t) =>
  t.field({ ...edge('account:read'), type: [ApiKey], description: 'Active API keys, newest first.', resolve: (a, _args, ctx) => listApiKeys(ctx.app.prisma, a.id) }),
);

builder.prismaObjectField('Account', 'connectedApps', (t) =>
  t.field({ ...edge('account:read'), type: [ConnectedApp], description: 'Connected OAuth apps, newest first.', resolve: (a, _args, ctx) => listGrants(ctx.app.prisma, a.id) }),
);
