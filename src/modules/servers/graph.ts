import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ArgBuilder } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { builder, type Types } from '../../schema/builder.ts';
import { connectionAfter, connectionArgs, connectionOf, connectionType, edge, pageSize } from '../../schema/graph.ts';
import { countServers, serverPage, type ServerFilter } from './graph-reads.ts';
import { Server } from './schema.ts';
import { powerRule, UNCHANGED_REASON } from './service.ts';
import { ACTION_MUTATIONS, SERVER_ACTIONS, serverActionRule, snapshotCounts } from './actions.ts';
import { lacksScope } from '../../errors.ts';
import type { OperationMeta } from '../../schema/operation.ts';
import { activePoolIds } from '../pools/status.ts';
import { values } from '../../schema/examples.ts';
import type { RequestContext } from '../../schema/context.ts';
import { GRAPH_ONLY, requestLoader } from '../../schema/graph.ts';
import { POWER_ACTIONS } from '../../provider/types.ts';
// Server.usage, the server's usage history.
import './usage.schema.ts';

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

// What a console may offer on a server: each power action with whether it runs now, by the same
// rule powerServer applies (powerRule), so a client never keeps a copy of the rules.

type PowerActionState = { action: string; available: boolean; reason: string | null };

const ServerPowerAction = builder.objectRef<PowerActionState>('ServerPowerAction').implement({
  description: 'A power action and whether the server takes it now.',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    action: t.exposeString('action', { ...values(POWER_ACTIONS), description: 'start, stop or reboot.' }),
    available: t.exposeBoolean('available', {
      description: 'True when serverPower would run it now (and change something).',
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        'Why not, when it is not available: the refusal serverPower would answer, or that it changes nothing.',
    }),
  }),
});

/**
 * The 403 a mutation answers first when the credential lacks the scope it declares
 * (schema/operation.ts), read from the schema so there is no second list of scopes.
 */
function missingScope(ctx: RequestContext, info: GraphQLResolveInfo, mutation: string) {
  const field = info.schema.getMutationType()?.getFields()[mutation];
  const scope = (field?.extensions?.operation as OperationMeta | undefined)?.scope;
  return scope && !ctx.principal?.scopes.has(scope) ? lacksScope(scope) : null;
}

/** Whether each pool a level of a query reaches is active, in one statement. */
const activePools = requestLoader<string, boolean>(async (ids, ctx) => {
  const active = await activePoolIds(ctx.db, ids);
  return ids.map((id) => active.has(id));
});

builder.prismaObjectFields(Server, (t) => ({
  powerActions: t.field({
    type: [ServerPowerAction],
    extensions: GRAPH_ONLY,
    description:
      'Each power action with whether this credential and the server take it now, and why not (GraphQL only).',
    resolve: async (server, _args, ctx, info) => {
      const poolActive = !server.poolId || (await activePools(ctx).load(server.poolId));
      const denied = missingScope(ctx, info, 'serverPower');
      return POWER_ACTIONS.map((action) => {
        const rule = denied ?? powerRule(server.status, action, poolActive);
        const reason = rule === 'unchanged' ? UNCHANGED_REASON[action as keyof typeof UNCHANGED_REASON] : rule?.message;
        return { action, available: rule === null, reason: reason ?? null };
      });
    },
  }),
}));

// The same for the server's other actions (actions.ts: serverActionRule, the rule their services apply).

const ServerActionState = builder.objectRef<PowerActionState>('ServerActionState').implement({
  description: 'An action on a server besides power, and whether the server takes it now.',
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    action: t.exposeString('action', {
      ...values(SERVER_ACTIONS),
      description:
        'snapshot (serverSnapshotCreate), revert (serverSnapshotRevert), snapshotDelete, reinstall, changePlan, addonAttach, addonDetach, ptr (serverPtrSet and serverPtrDelete) or terminate.',
    }),
    available: t.exposeBoolean('available', {
      description:
        "True when the server's state lets the mutation run now; what the request names (a snapshot, template, plan or add-on) may still be refused.",
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        "Why not, when it is not available: the refusal the mutation would answer (the credential's missing scope first).",
    }),
  }),
});

/** Snapshots per server, for every server a level of a query reaches, in one statement. */
const snapshotCount = requestLoader<string, number>(async (ids, ctx) => {
  const counts = await snapshotCounts(ctx.db, ids);
  return ids.map((id) => counts.get(id) ?? 0);
});

builder.prismaObjectFields(Server, (t) => ({
  actions: t.field({
    type: [ServerActionState],
    extensions: GRAPH_ONLY,
    description:
      'Each action on the server besides power with whether this credential and the server take it now, and why not (GraphQL only).',
    resolve: async (server, _args, ctx, info) => {
      const facts = { snapshotCount: await snapshotCount(ctx).load(server.id) };
      return SERVER_ACTIONS.map((action) => {
        const rule = missingScope(ctx, info, ACTION_MUTATIONS[action]) ?? serverActionRule(action, server, facts);
        return { action, available: rule === null, reason: rule?.message ?? null };
      });
    },
  }),
}));
