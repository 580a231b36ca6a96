import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { deleteFile, listFiles, makeDirectory, readFile, renameFile, writeFile } from './files.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';
import { HOSTING_PROVISIONING, SITE_WRITE_REFUSALS } from './service.ts';
import { FILE_TYPES } from '../../provider/hosting/types.ts';

// The file manager: list, read, write, delete, mkdir, rename (uploads and downloads are binary routes, binary.ts).

const HostingFile = builder.objectRef<Out<typeof makeDirectory>>('HostingFile').implement({
  description: 'A file or directory of the site.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The last part of the path.', ...example('index.html') }),
    path: t.exposeString('path', { description: 'Absolute inside the account ("/" is its home).' }),
    type: t.exposeString('type', { ...values(FILE_TYPES), description: 'file, directory, symlink or other.' }),
    sizeBytes: t.exposeFloat('sizeBytes', { description: 'Size in bytes.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When it last changed.' }),
    permissions: t.exposeString('permissions', { description: 'Octal, e.g. 0644.' }),
  }),
});
const HostingDirectory = builder.objectRef<Out<typeof listFiles>>('HostingDirectory').implement({
  description: 'A directory listing: directories first, then files, by name.',
  fields: (t) => ({
    path: t.exposeString('path', {
      description: 'The directory listed, absolute inside the account.',
      ...example('/public_html'),
    }),
    entries: t.field({ type: [HostingFile], description: 'Its entries, at most 1000.', resolve: (d) => d.entries }),
    truncated: t.exposeBoolean('truncated', { description: 'True when the directory holds more than 1000 entries.' }),
  }),
});
const HostingTextFile = builder.objectRef<Out<typeof readFile>>('HostingTextFile').implement({
  description: 'The contents of a UTF-8 text file.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'The file read, absolute inside the account.' }),
    content: t.exposeString('content', { untrusted: true, description: 'Its text (UTF-8).' }),
    sizeBytes: t.exposeFloat('sizeBytes', { description: 'Size in bytes.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});
const HostingFileDeleted = builder.objectRef<Out<typeof deleteFile>>('HostingFileDeleted').implement({
  description: 'A file or directory that was deleted.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'What was deleted, absolute inside the account.' }),
    type: t.exposeString('type', { description: 'file, directory, symlink or other.', ...values(FILE_TYPES) }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
  }),
});

builder.queryField('hostingFilesList', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'List a directory',
      description:
        'The entries of a directory of the site (default /public_html): name, type, size and modification time. 400 when the path is a file.',
    }),
    type: HostingDirectory,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({
        required: false,
        description: 'Directory, absolute inside the account (default /public_html).',
      }),
    },
    resolve: (_root, args, ctx) => listFiles(ctx, args.id, args.path),
  }),
);

builder.queryField('hostingFileRead', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files/read', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'Read a text file',
      description:
        'Read a UTF-8 text file of at most 1 MiB; download binary or larger files instead. 400 when the path is a directory.',
    }),
    type: HostingTextFile,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }),
    },
    resolve: (_root, args, ctx) => readFile(ctx, args.id, args.path),
  }),
);

builder.mutationField('hostingFileWrite', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/files', {
      consequence: destroys(
        'Write {path} on hosting account {id}: a file already there is overwritten and its content lost.',
      ),
      refuses: [...SITE_WRITE_REFUSALS],
      summary: 'Write a text file',
      description:
        'Create or overwrite a UTF-8 text file of at most 1 MiB; its directory must exist. Upload binary or larger files instead.',
    }),
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }),
      content: t.arg.string({ required: true, description: 'UTF-8 text, at most 1 MiB.' }),
    },
    resolve: (_root, args, ctx) => writeFile(ctx, args.id, args.path, args.content),
  }),
);

builder.mutationField('hostingFileDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/files', {
      consequence: destroys('Delete {path} on hosting account {id} (with everything inside when it is a directory).'),
      refuses: [HOSTING_PROVISIONING],
      summary: 'Delete a file',
      description: 'Delete a file, or a directory (pass recursive=true when it is not empty).',
    }),
    type: HostingFileDeleted,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'File or directory, absolute inside the account.' }),
      recursive: t.arg.boolean({ required: false, description: 'Delete a non-empty directory with its contents.' }),
    },
    resolve: (_root, args, ctx) => deleteFile(ctx, args.id, args.path, args.recursive),
  }),
);

builder.mutationField('hostingFileMkdir', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/mkdir', {
      refuses: [...SITE_WRITE_REFUSALS],
      summary: 'Create a directory',
      description: 'Create a directory; its parent must exist and the path must be free.',
    }),
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'New directory, absolute inside the account.' }),
    },
    resolve: (_root, args, ctx) => makeDirectory(ctx, args.id, args.path),
  }),
);

builder.mutationField('hostingFileRename', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/rename', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'Rename or move a file',
      description:
        'Rename or move a file or directory inside the account; the target must not exist and its directory must.',
    }),
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      from: t.arg.string({ required: true, description: 'Existing path.' }),
      to: t.arg.string({ required: true, description: 'New path; its directory must exist.' }),
    },
    resolve: (_root, args, ctx) => renameFile(ctx, args.id, args.from, args.to),
  }),
);
