import { z } from 'zod';
import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { example } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { operationsOf } from '../../schema/operation.ts';
import { SERVER_LABEL_RULES, SERVER_SETTLES } from '../servers/server-row.ts';
import { listConnection } from '../../schema/pagination.ts';
import { applyPoolIps, createServerInPool, listPoolIps, MAX_IP_CHANGES, MAX_POOL_SERVER_IPS } from './members.ts';
import { poolsArea } from './manifest.ts';

const op = operationsOf(poolsArea);

// What a pool holds: servers created inside it and the addresses of its block.

builder.mutationField('poolServerCreate', (t) =>
  t.prismaField({
    ...op({
      summary: 'Create a pool server',
      scope: 'servers:write',
      rest: 'POST /pools/:id/servers',
      settles: SERVER_SETTLES,
      description:
        "Create a Linux server inside a pool at no extra cost, with addresses from the pool block; it is `provisioning`, then `running`. 400 when the pool's free quota or addresses do not fit the plan.",
      fires: ['pool.ips.changed', 'server.created'],
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The pool id.' }),
      productId: t.arg.string({ required: true, description: 'Server plan giving vCPU, RAM and disk.' }),
      label: t.arg.string({
        required: true,
        description: 'A name for the server, also its host name.',
        ...inputSchema(SERVER_LABEL_RULES),
      }),
      os: t.arg.string({ required: false, description: 'OS family (linux); must match the template when given.' }),
      osTemplate: t.arg.string({ required: true, description: 'A Linux OS template.' }),
      ipCount: t.arg.int({
        required: false,
        description: 'Public addresses from the pool block (default 1; 0 = private-only).',
        ...inputSchema(z.number().min(0).max(MAX_POOL_SERVER_IPS)),
      }),
    },
    resolve: (query, _root, args, ctx) =>
      createServerInPool(
        ctx,
        args.id,
        {
          productId: args.productId,
          label: args.label,
          os: args.os ?? undefined,
          osTemplate: args.osTemplate,
          ipCount: args.ipCount ?? undefined,
        },
        query,
      ),
  }),
);

export const PoolIp = builder.objectRef<Awaited<ReturnType<typeof listPoolIps>>[number]>('PoolIp').implement({
  description: 'An IPv4 address of a pool block.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'The IPv4 address.' }),
    version: t.exposeInt('version', { description: 'IP version: 4.', ...example(4) }),
    ptr: t.exposeString('ptr', { nullable: true, description: 'Reverse DNS (PTR) name; null when none is set.' }),
    zoneHosted: t.exposeBoolean('zoneHosted', {
      description: 'False when the reverse zone is not hosted here: the PTR cannot be managed.',
    }),
    assignedTo: t.exposeString('assignedTo', {
      nullable: true,
      description: 'The server holding it; null means free in the block.',
    }),
  }),
});

const PoolIpConnection = listConnection(PoolIp);

wholeListQuery<{ id: string }>({
  name: 'poolIps',
  type: PoolIpConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The pool id.' }) }),
  list: (ctx, args) => listPoolIps(ctx.db, args.id),
  operation: op({
    summary: 'List pool addresses',
    scope: 'servers:read',
    rest: 'GET /pools/:id/ips',
    toolVerb: 'list',
    description: "Every IPv4 address of a pool's block with its PTR and the server holding it (null when free), whole.",
  }),
});

const PoolIpChange = builder.inputType('PoolIpChange', {
  fields: (t) => ({
    ip: t.string({ required: true, description: 'An address of the pool block.' }),
    serverId: t.string({
      required: false,
      description: 'A server of this pool, or null to return the address to the block.',
    }),
  }),
});

builder.mutationField('poolIpsApply', (t) =>
  t.field({
    ...op({
      summary: 'Apply address changes',
      scope: 'servers:write',
      rest: 'POST /pools/:id/ips/apply',
      rateLimit: 'poolIpApply',
      description:
        "Assign, move or return pool addresses in one atomic batch: every change applies or none does (400 names the first bad change). At most 6 calls per minute per credential. Answers the pool's addresses.",
      fires: ['pool.ips.changed'],
    }),
    type: [PoolIp],
    args: {
      id: t.arg.id({ required: true, description: 'The pool id.' }),
      changes: t.arg({
        type: [PoolIpChange],
        required: true,
        description: 'The changes, applied all or none.',
        ...inputSchema(z.array(z.unknown()).min(1).max(MAX_IP_CHANGES)),
      }),
    },
    resolve: (_root, args, ctx) => applyPoolIps(ctx, args.id, args.changes),
  }),
);
