import { z } from 'zod';
import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { example } from '../../schema/examples.ts';
import { listConnection } from '../../schema/pagination.ts';
import { createDatabase, deleteDatabase, listDatabases, resetDatabasePassword } from './databases.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { HOSTING_PLAN_RETIRED, HOSTING_PROVISIONING } from './service.ts';

// MySQL databases: list, create, delete, and a new password for a database's user.

const HostingDatabase = builder.objectRef<Out<typeof createDatabase>>('HostingDatabase').implement({
  description: 'An extra MySQL database (its user has the same name).',
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'Full database name: <databasePrefix><suffix>.',
      ...example('u5d7e9f1g2h_shop'),
    }),
    suffix: t.exposeString('suffix', { description: 'The name after the account prefix.', ...example('shop') }),
    user: t.exposeString('user', { description: 'Its MySQL user (the same name).', ...example('u5d7e9f1g2h_shop') }),
    host: t.exposeString('host', { description: 'MySQL host, as the site reaches it.', ...example('localhost') }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    passwordSetAt: t.expose('passwordSetAt', {
      type: 'DateTime',
      nullable: true,
      description:
        "When its user's password was last set (hostingDatabasePasswordReset); null until then, and the user cannot sign in before.",
    }),
  }),
});

const HostingDatabasePassword = builder
  .objectRef<Out<typeof resetDatabasePassword>>('HostingDatabasePassword')
  .implement({
    description: "A database user's new password, shown once: the service keeps only a hash of it.",
    fields: (t) => ({
      name: t.exposeString('name', { description: 'The database.', ...example('u5d7e9f1g2h_shop') }),
      user: t.exposeString('user', { description: 'Its MySQL user.', ...example('u5d7e9f1g2h_shop') }),
      host: t.exposeString('host', { description: 'MySQL host, as the site reaches it.', ...example('localhost') }),
      password: t.exposeString('password', { description: 'The new password, shown only in this answer.' }),
      passwordSetAt: t.expose('passwordSetAt', { type: 'DateTime', description: 'When it was set.' }),
    }),
  });
const HostingDatabaseDeleted = builder
  .objectRef<{ name: string; deleted: boolean }>('HostingDatabaseDeleted')
  .implement({
    description: 'A database that was deleted.',
    fields: (t) => ({
      name: t.exposeString('name', { description: 'The database deleted.', ...example('u5d7e9f1g2h_shop') }),
      deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
    }),
  });

const HostingDatabaseConnection = listConnection(HostingDatabase);

wholeListQuery<{ id: string }>({
  name: 'hostingDatabases',
  type: HostingDatabaseConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The hosting account id.' }) }),
  list: (ctx, args) => listDatabases(ctx, args.id),
  operation: panel('GET /hosting/:id/databases', {
    toolVerb: 'list',
    summary: 'List databases',
    description: 'The extra MySQL databases of the account with their sizes, whole.',
  }),
});

builder.mutationField('hostingDatabaseCreate', (t) =>
  t.field({
    ...panel('POST /hosting/:id/databases', {
      refuses: [HOSTING_PROVISIONING, HOSTING_PLAN_RETIRED],
      summary: 'Create a database',
      description:
        "Create an extra MySQL database, <prefix>_<suffix>, and its user of the same name (no password until one is set). 400 when it exists or the plan's number of databases is reached. 409 while provisioning.",
    }),
    type: HostingDatabase,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      suffix: t.arg.string({
        required: true,
        description: 'The database name after the account prefix: 1 to 16 lowercase letters, digits or underscores.',
        ...inputSchema(
          z
            .string()
            .regex(
              /^[a-z0-9_]{1,16}$/,
              '1 to 16 characters of lowercase letters, digits and underscores (the database is named <prefix>_<suffix>)',
            ),
        ),
      }),
    },
    resolve: (_root, args, ctx) => createDatabase(ctx, args.id, args.suffix),
  }),
);

builder.mutationField('hostingDatabaseDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/databases/:name', {
      consequence: destroys('Delete database {name} of hosting account {id} with all its data.'),
      refuses: [HOSTING_PROVISIONING],
      summary: 'Delete a database',
      description: 'Delete an extra MySQL database and all its data.',
    }),
    type: HostingDatabaseDeleted,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      name: t.arg.string({ required: true, description: 'Full database name.' }),
    },
    resolve: (_root, args, ctx) => deleteDatabase(ctx, args.id, args.name),
  }),
);

builder.mutationField('hostingDatabasePasswordReset', (t) =>
  t.field({
    ...panel('POST /hosting/:id/databases/:name/password', {
      refuses: [HOSTING_PROVISIONING],
      notTool: 'returns a database password; handing it to a model is not a safe default',
      summary: "Reset a database's password",
      description:
        "Set a new random password for the database's MySQL user and return it once; the service keeps only a bcrypt hash. The earlier password stops working. A new database's user has no password until this is called. 409 while the account is still provisioning.",
    }),
    type: HostingDatabasePassword,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      name: t.arg.string({ required: true, description: 'Full database name.' }),
    },
    resolve: (_root, args, ctx) => resetDatabasePassword(ctx, args.id, args.name),
  }),
);
