import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { edge, GRAPH_ONLY } from '../../schema/graph.ts';
import { apiKeysByIds, listApiKeys } from '../auth/service.ts';
import { requirePasswordSession } from '../dashboard/sessions.ts';
import { listGrants } from '../oauth/service.ts';

// The credentials of the account in the graph (GraphQL only: REST has no such operations).
// Both read with account:read; neither carries a secret (keys are stored as hashes). Like the
// dashboard's API, they refuse a session opened from an SSO link (requirePasswordSession).

type Key = Awaited<ReturnType<typeof listApiKeys>>[number];
type Grant = Awaited<ReturnType<typeof listGrants>>[number];

const ApiKey = builder.node(builder.objectRef<Key>('ApiKey'), {
  ...loadedNode('ApiKey', {
    prefix: 'key',
    scope: 'account:read',
    id: { description: 'The key id (key_…).' },
    load: (ctx, ids) => {
      requirePasswordSession(ctx.principal!);
      return apiKeysByIds(ctx.db, ids);
    },
  }),
  description: 'An API key of the account (its secret is never shown again).',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, given when it was made.' }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it.' }),
    scopes: t.exposeStringList('scopes', { description: 'Scopes it grants.' }),
    expiresAt: t.exposeString('expiresAt', {
      nullable: true,
      description: 'When it stops working (ISO 8601, UTC); null for never.',
    }),
    lastUsedAt: t.exposeString('lastUsedAt', {
      nullable: true,
      description: 'Its last use, to the minute (ISO 8601, UTC); null when never used.',
    }),
    createdAt: t.exposeString('createdAt', { description: 'When it was made (ISO 8601, UTC).' }),
  }),
});

const ConnectedApp = builder.objectRef<Grant>('ConnectedApp').implement({
  description: 'An OAuth app the account holder connected, with the scopes granted.',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The grant.' }),
    clientId: t.string({ description: 'The OAuth client id of the app.', resolve: (g) => g.client.id }),
    name: t.string({ description: "The app's name, as it registered.", resolve: (g) => g.client.name }),
    redirectHost: t.exposeString('redirectHost', {
      nullable: true,
      description: 'Host the authorization redirected to; null for a device sign-in.',
    }),
    resource: t.exposeString('resource', {
      nullable: true,
      description:
        'The one resource (RFC 8707) its tokens are accepted at, such as the MCP endpoint; null for every surface.',
    }),
    scopes: t.exposeStringList('scopes', { description: 'Scopes granted.' }),
    lastUsedAt: t.exposeString('lastUsedAt', {
      nullable: true,
      description: 'Last use of its tokens (ISO 8601, UTC); null when never used.',
    }),
    createdAt: t.exposeString('createdAt', { description: 'When the app was connected (ISO 8601, UTC).' }),
  }),
});

builder.prismaObjectFields('Account', (t) => ({
  apiKeys: t.field({
    ...edge('account:read'),
    type: [ApiKey],
    description: 'Active API keys, newest first.',
    resolve: (a, _args, ctx) => {
      requirePasswordSession(ctx.principal!);
      return listApiKeys(ctx.app.prisma, a.id);
    },
  }),
}));

builder.prismaObjectFields('Account', (t) => ({
  connectedApps: t.field({
    ...edge('account:read'),
    type: [ConnectedApp],
    description: 'Connected OAuth apps, newest first.',
    resolve: (a, _args, ctx) => {
      requirePasswordSession(ctx.principal!);
      return listGrants(ctx.app.prisma, a.id);
    },
  }),
}));
