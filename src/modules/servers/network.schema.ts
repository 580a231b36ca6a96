import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { dnsName } from '../../core/input-schemas.ts';
import { example } from '../../schema/examples.ts';
import { GRAPH_ONLY } from '../../schema/graph.ts';
import { prismaNodeOptions } from '../../schema/node-kinds.ts';
import { operationsOf, destroys } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { listServerIps, setPtr } from './network.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// A server's addresses and their reverse DNS (PTR) records.

const ServerIp = builder.prismaNode('ServerIp', {
  ...prismaNodeOptions('ServerIp', {
    prefix: 'ip',
    scope: 'servers:read',
    // REST names an address by itself (/servers/:id/ips/:ip): the id is the graph's alone.
    id: { extensions: GRAPH_ONLY, description: 'Global id of the address record (ip_…).' },
    find: (ctx, id) => ctx.db.serverIp.findUnique({ where: { id } }),
    // Terminating a server deletes its own addresses and frees its pool's: an address of no server reads as missing.
    visible: (row) => row.serverId !== null,
  }),
  description: 'An address routed to a server, with its reverse DNS record.',
  fields: (t) => ({
    ip: t.exposeString('address', { description: 'The IPv4 or IPv6 address.' }),
    version: t.exposeInt('version', { description: 'IP version: 4 or 6.', ...example(4) }),
    ptr: t.exposeString('ptr', { nullable: true, description: 'Reverse DNS (PTR) name; null when none is set.' }),
    zoneHosted: t.exposeBoolean('zoneHosted', {
      description: 'False when the reverse zone is not hosted here: the PTR cannot be managed.',
    }),
    primary: t.exposeBoolean('isPrimary', { description: "True for the server's main address." }),
  }),
});

const ServerIpConnection = listConnection(ServerIp);

wholeListQuery<{ id: string }>({
  name: 'serverIps',
  type: ServerIpConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The server id.' }) }),
  list: (ctx, args, info) => listServerIps(ctx.db, args.id, queryFromInfo({ context: ctx, info, path: ['nodes'] })),
  operation: op({
    summary: 'List server IPs',
    scope: 'servers:read',
    rest: 'GET /servers/:id/ips',
    toolVerb: 'list',
    description: 'Every IP address of a server with its PTR (reverse DNS) record, whole.',
  }),
});

builder.mutationField('serverPtrSet', (t) =>
  t.prismaField({
    ...op({
      summary: 'Set a PTR record',
      scope: 'servers:write',
      rest: 'PUT /servers/:id/ips/:ip/ptr',
      description:
        "Set the PTR (reverse DNS) record of one of the server's addresses; setting the same name again changes nothing. 400 when the address's reverse zone is not hosted here (zoneHosted false).",
      fires: ['server.ptr.changed'],
    }),
    type: 'ServerIp',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      ip: t.arg.string({ required: true, description: "One of the server's addresses." }),
      hostname: t.arg.string({
        required: true,
        description: 'Fully qualified DNS name, e.g. mail.example.com.',
        ...inputSchema(dnsName('host')),
      }),
    },
    resolve: (query, _root, args, ctx) => setPtr(ctx, args.id, args.ip, args.hostname, query),
  }),
);

builder.mutationField('serverPtrDelete', (t) =>
  t.prismaField({
    ...op({
      summary: 'Remove a PTR record',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/ips/:ip/ptr',
      consequence: destroys('Remove the reverse DNS (PTR) record of {ip} on server {id}.'),
      description:
        "Remove the PTR (reverse DNS) record of one of the server's addresses. 400 when its reverse zone is not hosted here.",
      fires: ['server.ptr.changed'],
    }),
    type: 'ServerIp',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      ip: t.arg.string({ required: true, description: "One of the server's addresses." }),
    },
    resolve: (query, _root, args, ctx) => setPtr(ctx, args.id, args.ip, null, query),
  }),
);
