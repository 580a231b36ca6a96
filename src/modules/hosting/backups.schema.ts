import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { values } from '../../schema/examples.ts';
import { Deleted } from '../../schema/deleted.ts';
import { idOperation, wholeListQuery } from '../../schema/operation-fields.ts';
import { listConnection } from '../../schema/pagination.ts';
import { backupsByIds, BACKUP_STATES, createBackup, deleteBackup, listBackups, restoreBackup } from './backups.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';
import { SITE_WRITE_REFUSALS } from './service.ts';

// Backups: list, create, delete, restore (downloads are a binary route, binary.ts).

const HostingBackup = builder.node(builder.objectRef<Out<typeof createBackup>>('HostingBackup'), {
  ...loadedNode('HostingBackup', {
    prefix: 'hbk',
    scope: 'hosting:manage',
    id: { description: 'The backup id (hbk_…).' },
    load: (ctx, ids) => backupsByIds(ctx, ids),
  }),
  description: 'A site backup (restore point): the files and the databases dumps, as a gzip tarball.',
  fields: (t) => ({
    hostingId: t.exposeString('hostingId', { description: 'The hosting account backed up.' }),
    status: t.exposeString('status', { ...values(BACKUP_STATES), description: 'available.' }),
    sizeBytes: t.exposeInt('sizeBytes', { description: 'Size of the archive in bytes.' }),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the archive, hex.' }),
    databases: t.exposeStringList('databases', { description: 'Databases whose dumps it holds.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was taken.' }),
  }),
});
const HostingBackupRestore = builder.objectRef<Out<typeof restoreBackup>>('HostingBackupRestore').implement({
  description: 'A finished restore: the site and its databases are as in the backup.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The backup.' }),
    hostingId: t.exposeString('hostingId', { description: 'The hosting account restored.' }),
    restoredAt: t.expose('restoredAt', { type: 'DateTime', description: 'When the restore finished.' }),
    databases: t.exposeStringList('databases', {
      description: 'Databases restored; any made since the backup were dropped.',
    }),
  }),
});

const HostingBackupConnection = listConnection(HostingBackup);

wholeListQuery<{ id: string }>({
  name: 'hostingBackups',
  type: HostingBackupConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The hosting account id.' }) }),
  list: (ctx, args) => listBackups(ctx, args.id),
  operation: panel('GET /hosting/:id/backups', {
    toolVerb: 'list',
    summary: 'List backups',
    description: 'The backups (restore points) of the site, newest first, whole.',
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingBackupCreate',
  type: HostingBackup,
  idDescription: 'The hosting account id.',
  run: createBackup,
  operation: panel('POST /hosting/:id/backups', {
    refuses: [...SITE_WRITE_REFUSALS],
    summary: 'Create a backup',
    description:
      "Back up the site files and databases now, available at once to download. The archive counts toward the disk quota (409 QUOTA_EXCEEDED when it would not fit). 400 when the plan's number of kept backups is reached (delete one first). 409 while the account is still provisioning.",
  }),
});

builder.mutationField('hostingBackupDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/backups/:bid', {
      consequence: destroys('Delete backup {bid} of hosting account {id} and its archive.'),
      summary: 'Delete a backup',
      description: 'Delete a backup and its archive.',
    }),
    type: Deleted,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      bid: t.arg.id({ required: true, description: 'The backup id.' }),
    },
    resolve: (_root, args, ctx) => deleteBackup(ctx, args.id, args.bid),
  }),
);

builder.mutationField('hostingBackupRestore', (t) =>
  t.field({
    ...panel('POST /hosting/:id/backups/:bid/restore', {
      consequence: destroys(
        'Restore backup {bid} on hosting account {id}: the current site files and databases are replaced.',
      ),
      refuses: [...SITE_WRITE_REFUSALS],
      summary: 'Restore a backup',
      description:
        'Put the site files and databases back as they were in a backup; the current ones are replaced. 409 while the account is still provisioning.',
      hints: { idempotent: true },
    }),
    type: HostingBackupRestore,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      bid: t.arg.id({ required: true, description: 'The backup id.' }),
    },
    resolve: (_root, args, ctx) => restoreBackup(ctx, args.id, args.bid),
  }),
);
