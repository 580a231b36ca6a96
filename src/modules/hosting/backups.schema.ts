import { builder } from '../../schema/builder.ts';
import { Deleted } from '../../schema/deleted.ts';
import { listType, wholeList } from '../../schema/pagination.ts';
import { createBackup, deleteBackup, listBackups, restoreBackup } from './backups.ts';
import { panel, type Out } from './panel-operation.ts';

// Backups: list, create, delete, restore (downloads are a binary route, binary.ts).

const HostingBackup = builder.objectRef<Out<typeof createBackup>>('HostingBackup').implement({
  description: 'A site backup (restore point): the files and the databases dumps, as a gzip tarball.',
  fields: (t) => ({
    id: t.exposeID('id'),
    hostingId: t.exposeString('hostingId'),
    status: t.exposeString('status', { description: 'available.' }),
    sizeBytes: t.exposeInt('sizeBytes'),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the archive, hex.' }),
    databases: t.exposeStringList('databases', { description: 'Databases whose dumps it holds.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
const HostingBackupRestore = builder.objectRef<Out<typeof restoreBackup>>('HostingBackupRestore').implement({
  description: 'A finished restore: the site and its databases are as in the backup.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The backup.' }),
    hostingId: t.exposeString('hostingId'),
    restoredAt: t.expose('restoredAt', { type: 'DateTime' }),
    databases: t.exposeStringList('databases'),
  }),
});

const HostingBackupList = listType('HostingBackupList', HostingBackup);

builder.queryField('hostingBackups', (t) =>
  t.field({
    ...panel('GET /hosting/:id/backups', 'hosting_backups_list'),
    description: 'List the backups (restore points) of the site, newest first.',
    type: HostingBackupList,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => wholeList(await listBackups(ctx, args.id)),
  }),
);

builder.mutationField('hostingBackupCreate', (t) =>
  t.field({
    ...panel('POST /hosting/:id/backups', 'hosting_backup_create'),
    description: 'Create a backup of the site files and databases now.',
    type: HostingBackup,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => createBackup(ctx, args.id),
  }),
);

builder.mutationField('hostingBackupDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/backups/:bid', 'hosting_backup_delete'),
    description: 'Delete a backup and its archive.',
    type: Deleted,
    args: { id: t.arg.id({ required: true }), bid: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteBackup(ctx, args.id, args.bid),
  }),
);

builder.mutationField('hostingBackupRestore', (t) =>
  t.field({
    ...panel('POST /hosting/:id/backups/:bid/restore', 'hosting_backup_restore', { hints: { destructive: true, idempotent: true } }),
    description: 'Restore the site files and databases from a backup (replaces the current ones).',
    type: HostingBackupRestore,
    args: { id: t.arg.id({ required: true }), bid: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => restoreBackup(ctx, args.id, args.bid),
  }),
);
