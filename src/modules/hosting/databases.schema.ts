import { builder } from '../../schema/builder.ts';
import { listType, wholeList } from '../../schema/pagination.ts';
import { createDatabase, deleteDatabase, listDatabases } from './databases.ts';
import { panel, type Out } from './panel-operation.ts';
import { rules } from '../../schema/input-rules.ts';

// MySQL databases: list, create, delete.

const HostingDatabase = builder.objectRef<Out<typeof createDatabase>>('HostingDatabase').implement({
  description: 'An extra MySQL database (its user has the same name).',
  fields: (t) => ({
    name: t.exposeString('name'),
    suffix: t.exposeString('suffix'),
    user: t.exposeString('user'),
    host: t.exposeString('host'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
const HostingDatabaseDeleted = builder.objectRef<{ name: string; deleted: boolean }>('HostingDatabaseDeleted').implement({
  fields: (t) => ({ name: t.exposeString('name'), deleted: t.exposeBoolean('deleted') }),
});

const HostingDatabaseList = listType('HostingDatabaseList', HostingDatabase);

builder.queryField('hostingDatabases', (t) =>
  t.field({
    ...panel('GET /hosting/:id/databases', 'hosting_databases_list'),
    description: 'List the extra MySQL databases of the account.',
    type: HostingDatabaseList,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => wholeList(await listDatabases(ctx, args.id)),
  }),
);

builder.mutationField('hostingDatabaseCreate', (t) =>
  t.field({
    ...panel('POST /hosting/:id/databases', 'hosting_database_create'),
    description: 'Create an extra MySQL database named <prefix>_<suffix>.',
    type: HostingDatabase,
    args: { id: t.arg.id({ required: true }), suffix: t.arg.string({ required: true, ...rules({ pattern: { regex: /^[a-z0-9_]{1,16}$/, means: '1 to 16 characters of lowercase letters, digits and underscores (the database is named <prefix>_<suffix>)' } }) }) },
    resolve: (_root, args, ctx) => createDatabase(ctx, args.id, args.suffix),
  }),
);

builder.mutationField('hostingDatabaseDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/databases/:name', 'hosting_database_delete'),
    description: 'Delete an extra MySQL database and its data.',
    type: HostingDatabaseDeleted,
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true, description: 'Full database name.' }) },
    resolve: (_root, args, ctx) => deleteDatabase(ctx, args.id, args.name),
  }),
);
