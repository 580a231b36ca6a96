import { z } from 'zod';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { Deleted } from '../../schema/deleted.ts';
import { values } from '../../schema/examples.ts';
import { prismaNodeOptions } from '../../schema/node-kinds.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { operationsOf, destroys } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { INOPERABLE_409, LABEL_RULES, SERVER_BUSY, SERVER_SETTLES } from './server-row.ts';
import {
  createSnapshot,
  deleteSnapshot,
  listSnapshots,
  revertSnapshot,
  SNAPSHOT_NOT_AVAILABLE,
  SNAPSHOT_STATES,
} from './snapshots.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// Snapshots: restore points of a server disk, taken, listed, deleted and reverted to.

const Snapshot = builder.prismaNode('Snapshot', {
  ...prismaNodeOptions('Snapshot', {
    prefix: 'snap',
    scope: 'servers:read',
    id: { description: 'The snapshot id (snap_…).' },
    // Terminating a server deletes its snapshots: a snapshot's server is always visible.
    find: (ctx, id) => ctx.db.snapshot.findUnique({ where: { id } }),
  }),
  description: 'A restore point of a server disk.',
  fields: (t) => ({
    serverId: t.exposeString('serverId', { description: 'The server whose disk it holds.' }),
    name: t.exposeString('name', { description: 'Your name for it, 1 to 64 characters.' }),
    description: t.exposeString('description', {
      description: 'Your note on it, at most 500 characters ("" when none).',
    }),
    status: t.exposeString('status', {
      ...values(SNAPSHOT_STATES, 'available'),
      description: 'creating or available.',
    }),
    sizeGb: t.exposeInt('sizeGb', { description: 'Size of the disk image in GB.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was taken.' }),
  }),
});

const SnapshotConnection = listConnection(Snapshot);

wholeListQuery<{ id: string }>({
  name: 'serverSnapshots',
  type: SnapshotConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The server id.' }) }),
  list: (ctx, args, info) => listSnapshots(ctx.db, args.id, queryFromInfo({ context: ctx, info, path: ['nodes'] })),
  operation: op({
    summary: 'List snapshots',
    scope: 'servers:read',
    rest: 'GET /servers/:id/snapshots',
    toolVerb: 'list',
    description: 'The snapshots (restore points) of a server, newest first, whole.',
  }),
});

builder.mutationField('serverSnapshotCreate', (t) =>
  t.prismaField({
    ...op({
      summary: 'Take a snapshot',
      scope: 'servers:write',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/snapshots',
      fires: ['server.snapshot.created'],
      description: `Take a snapshot of the server disk; it is \`creating\`, then \`available\`. A server keeps at most 10 snapshots (400 beyond: delete one first). ${INOPERABLE_409}`,
    }),
    type: 'Snapshot',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      name: t.arg.string({ required: true, description: '1 to 64 characters.', ...inputSchema(LABEL_RULES) }),
      description: t.arg.string({
        required: false,
        description: 'At most 500 characters.',
        ...inputSchema(z.string().max(500)),
      }),
    },
    resolve: (query, _root, args, ctx) =>
      createSnapshot(ctx, args.id, { name: args.name, description: args.description }, query),
  }),
);

builder.mutationField('serverSnapshotDelete', (t) =>
  t.field({
    ...op({
      summary: 'Delete a snapshot',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/snapshots/:snapshotId',
      consequence: destroys('Delete snapshot {snapshotId} of server {id}: it cannot be restored afterwards.'),
      fires: ['server.snapshot.deleted'],
      description: 'Delete a snapshot; the live disk is not touched.',
    }),
    type: Deleted,
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      snapshotId: t.arg.id({ required: true, description: 'The snapshot id.' }),
    },
    resolve: (_root, args, ctx) => deleteSnapshot(ctx, args.id, args.snapshotId),
  }),
);

builder.mutationField('serverSnapshotRevert', (t) =>
  t.prismaField({
    ...op({
      summary: 'Revert to a snapshot',
      scope: 'servers:destroy',
      refuses: [SERVER_BUSY, SNAPSHOT_NOT_AVAILABLE],
      rest: 'POST /servers/:id/snapshots/:snapshotId/revert',
      settles: SERVER_SETTLES,
      consequence: destroys(
        'Revert server {id} to snapshot {snapshotId}: everything written to its disk since the snapshot is lost.',
      ),
      fires: ['server.snapshot.reverted'],
      description: `Roll the live disk back to a snapshot: everything written since is lost. The server is \`restoring\` for about a minute, then back to its former state. 409 when the snapshot is not \`available\` yet. ${INOPERABLE_409}`,
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      snapshotId: t.arg.id({ required: true, description: 'The snapshot id.' }),
    },
    resolve: (query, _root, args, ctx) => revertSnapshot(ctx, args.id, args.snapshotId, query),
  }),
);
