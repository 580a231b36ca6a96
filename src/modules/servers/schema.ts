import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../schema/builder.ts';
import { operation } from '../../schema/operation.ts';
import { listType, pageArgs } from '../../schema/pagination.ts';
import { createSnapshot, getServer, listServers, listSnapshots, powerServer } from './service.ts';

export const ServerIp = builder.prismaObject('ServerIp', {
  description: 'An address routed to a server, with its reverse DNS record.',
  fields: (t) => ({
    ip: t.exposeString('address'),
    version: t.exposeInt('version'),
    ptr: t.exposeString('ptr', { nullable: true }),
    zoneHosted: t.exposeBoolean('zoneHosted', { description: 'False when the reverse zone is not hosted here: the PTR cannot be managed.' }),
    primary: t.exposeBoolean('isPrimary'),
  }),
});

// Upstream details (node, upstream id, provisioning log) live in ProviderServer and are never exposed.
export const Server = builder.prismaObject('Server', {
  description: 'A cloud server.',
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    status: t.exposeString('status', { description: 'provisioning, running, stopped, rebooting, suspended or terminated.' }),
    productId: t.exposeString('productId'),
    vcpu: t.exposeInt('vcpu'),
    ramMb: t.exposeInt('ramMb'),
    diskGb: t.exposeInt('diskGb'),
    os: t.exposeString('os'),
    osTemplate: t.exposeString('osTemplate'),
    suspendReason: t.exposeString('suspendReason', { nullable: true }),
    ips: t.relation('ips', { query: { orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }] } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    provisionedAt: t.expose('provisionedAt', { type: 'DateTime', nullable: true }),
  }),
});

const ServerList = listType('ServerList', Server);

builder.queryField('servers', (t) =>
  t.field({
    ...operation({ scope: 'servers:read', rest: 'GET /servers', area: 'servers', tool: 'servers_list' }),
    description: 'List the servers on the account, newest first.',
    type: ServerList,
    args: pageArgs(t),
    resolve: (_root, args, ctx, info) => listServers(ctx.db, args, queryFromInfo({ context: ctx, info, path: ['data'] })),
  }),
);

builder.queryField('server', (t) =>
  t.prismaField({
    ...operation({ scope: 'servers:read', rest: 'GET /servers/:id', area: 'servers', tool: 'server_get' }),
    description: 'Get one server with its IPs.',
    type: 'Server',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getServer(ctx.db, String(args.id), query),
  }),
);

const PowerAction = builder.enumType('PowerAction', { values: ['start', 'stop', 'reboot'] as const });

builder.mutationField('serverPower', (t) =>
  t.prismaField({
    ...operation({ scope: 'servers:write', rest: 'POST /servers/:id/power/:action', area: 'servers', tool: 'server_power' }),
    description: 'Start, stop or reboot a server.',
    type: 'Server',
    args: { id: t.arg.id({ required: true }), action: t.arg({ type: PowerAction, required: true }) },
    resolve: (query, _root, args, ctx) => powerServer(ctx, String(args.id), args.action, query),
  }),
);

export const Snapshot = builder.prismaObject('Snapshot', {
  description: 'A restore point of a server disk.',
  fields: (t) => ({
    id: t.exposeID('id'),
    serverId: t.exposeString('serverId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    status: t.exposeString('status', { description: 'creating or available.' }),
    sizeGb: t.exposeInt('sizeGb'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryField('serverSnapshots', (t) =>
  t.prismaField({
    ...operation({ scope: 'servers:read', rest: 'GET /servers/:id/snapshots', area: 'servers', tool: 'server_snapshots_list' }),
    description: 'List the snapshots (restore points) of a server, newest first.',
    type: ['Snapshot'],
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => listSnapshots(ctx.db, String(args.id), query),
  }),
);

builder.mutationField('serverSnapshotCreate', (t) =>
  t.prismaField({
    ...operation({ scope: 'servers:write', rest: 'POST /servers/:id/snapshots', area: 'servers', tool: 'server_snapshot_create', idempotent: true }),
    description: 'Take a snapshot of a server disk.',
    type: 'Snapshot',
    args: {
      id: t.arg.id({ required: true }),
      name: t.arg.string({ required: true, description: '1 to 64 characters.' }),
      description: t.arg.string({ required: false, description: 'At most 500 characters.' }),
    },
    resolve: (query, _root, args, ctx) => createSnapshot(ctx, String(args.id), { name: args.name, description: args.description }, query),
  }),
);
