import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ArgBuilder } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { builder, type Types } from '../../schema/builder.ts';
import {
  connectionAfter,
  connectionArgs,
  connectionOf,
  connectionType,
  edge,
  nodeKind,
  pageSize,
} from '../../schema/graph.ts';
import {
  attachedAddonsByIds,
  countServers,
  serverIpsByIds,
  serverPage,
  serversByIds,
  snapshotsByIds,
  type ServerFilter,
} from './graph-reads.ts';
import { Server } from './schema.ts';

// The servers area in the graph (docs/REFERENCE.md: The graph): Account.servers, and servers, snapshots,
// attached add-ons and addresses by global id.

export const ServerConnection = connectionType('Server', Server);

/** Filters a server connection offers besides first/after. */
export const serverFilterArgs = (t: { arg: ArgBuilder<Types> }) => ({
  status: t.arg.string({
    required: false,
    description: 'Only servers in this state (running, stopped, provisioning …).',
  }),
  search: t.arg.string({ required: false, description: 'Only servers whose label contains this text (any case).' }),
});

/** The prisma plugin's selection for the nodes of a connection, asked as `nodes` or `edges { node }`. */
export const nodesQuery = (ctx: object, info: GraphQLResolveInfo, typeName: string) =>
  queryFromInfo({ context: ctx, info, typeName, paths: [['nodes'], ['edges', 'node']] });

builder.prismaObjectFields('Account', (t) => ({
  servers: t.field({
    ...edge('servers:read'),
    type: ServerConnection,
    description: 'The servers of the account, newest first.',
    args: {
      ...connectionArgs(t),
      ...serverFilterArgs(t),
      poolId: t.arg.id({ required: false, description: 'Only the servers of this pool.' }),
    },
    resolve: async (_account, args, ctx, info) => {
      const first = pageSize(args);
      const filter: ServerFilter = {
        status: args.status,
        search: args.search,
        poolId: args.poolId == null ? null : String(args.poolId),
      };
      const rows = await serverPage(
        ctx.db,
        filter,
        { first, after: connectionAfter(args, 'srv') },
        nodesQuery(ctx, info, 'Server'),
      );
      return connectionOf(rows, first, () => countServers(ctx.db, filter), args.after);
    },
  }),
}));

nodeKind({ prefix: 'srv', typename: 'Server', scope: 'servers:read', load: (ctx, ids) => serversByIds(ctx.db, ids) });
nodeKind({
  prefix: 'snap',
  typename: 'Snapshot',
  scope: 'servers:read',
  load: (ctx, ids) => snapshotsByIds(ctx.db, ids),
});
nodeKind({
  prefix: 'sad',
  typename: 'AttachedAddon',
  scope: 'servers:read',
  load: (ctx, ids) => attachedAddonsByIds(ctx.db, ids),
});
nodeKind({
  prefix: 'ip',
  typename: 'ServerIp',
  scope: 'servers:read',
  load: (ctx, ids) => serverIpsByIds(ctx.db, ids),
});
