import { builder } from '../../schema/builder.ts';
import { deleteFile, listFiles, makeDirectory, readFile, renameFile, writeFile } from './files.ts';
import { panel, type Out } from './panel-operation.ts';

// The file manager: list, read, write, delete, mkdir, rename (uploads and downloads are binary routes, binary.ts).

const HostingFile = builder.objectRef<Out<typeof makeDirectory>>('HostingFile').implement({
  description: 'A file or directory of the site.',
  fields: (t) => ({
    name: t.exposeString('name'),
    path: t.exposeString('path', { description: 'Absolute inside the account ("/" is its home).' }),
    type: t.exposeString('type', { description: 'file, directory, symlink or other.' }),
    sizeBytes: t.exposeFloat('sizeBytes'),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    permissions: t.exposeString('permissions', { description: 'Octal, e.g. 0644.' }),
  }),
});
const HostingDirectory = builder.objectRef<Out<typeof listFiles>>('HostingDirectory').implement({
  description: 'A directory listing: directories first, then files, by name.',
  fields: (t) => ({
    path: t.exposeString('path'),
    entries: t.field({ type: [HostingFile], resolve: (d) => d.entries }),
    truncated: t.exposeBoolean('truncated', { description: 'True when the directory holds more than 1000 entries.' }),
  }),
});
const HostingTextFile = builder.objectRef<Out<typeof readFile>>('HostingTextFile').implement({
  description: 'The contents of a UTF-8 text file.',
  fields: (t) => ({
    path: t.exposeString('path'),
    content: t.exposeString('content'),
    sizeBytes: t.exposeFloat('sizeBytes'),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
  }),
});
const HostingFileDeleted = builder.objectRef<Out<typeof deleteFile>>('HostingFileDeleted').implement({
  fields: (t) => ({ path: t.exposeString('path'), type: t.exposeString('type'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('hostingFilesList', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files', 'hosting_files_list'),
    description: 'List a directory of the site (default /public_html).',
    type: HostingDirectory,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: false, description: 'Directory, absolute inside the account (default /public_html).' }) },
    resolve: (_root, args, ctx) => listFiles(ctx, args.id, args.path),
  }),
);

builder.queryField('hostingFileRead', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files/read', 'hosting_file_read'),
    description: 'Read a UTF-8 text file of at most 1 MiB (binary files: download them).',
    type: HostingTextFile,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }) },
    resolve: (_root, args, ctx) => readFile(ctx, args.id, args.path),
  }),
);

builder.mutationField('hostingFileWrite', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/files', 'hosting_file_write'),
    description: 'Create or overwrite a text file (its directory must exist).',
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true }),
      path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }),
      content: t.arg.string({ required: true, description: 'UTF-8 text, at most 1 MiB.' }),
    },
    resolve: (_root, args, ctx) => writeFile(ctx, args.id, args.path, args.content),
  }),
);

builder.mutationField('hostingFileDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/files', 'hosting_file_delete'),
    description: 'Delete a file, or a directory (recursive=true when it is not empty).',
    type: HostingFileDeleted,
    args: {
      id: t.arg.id({ required: true }),
      path: t.arg.string({ required: true, description: 'File or directory, absolute inside the account.' }),
      recursive: t.arg.boolean({ required: false, description: 'Delete a non-empty directory with its contents.' }),
    },
    resolve: (_root, args, ctx) => deleteFile(ctx, args.id, args.path, args.recursive),
  }),
);

builder.mutationField('hostingFileMkdir', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/mkdir', 'hosting_file_mkdir'),
    description: 'Create a directory (its parent must exist).',
    type: HostingFile,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: true, description: 'New directory, absolute inside the account.' }) },
    resolve: (_root, args, ctx) => makeDirectory(ctx, args.id, args.path),
  }),
);

builder.mutationField('hostingFileRename', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/rename', 'hosting_file_rename'),
    description: 'Rename or move a file or directory (the target must not exist).',
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true }),
      from: t.arg.string({ required: true, description: 'Existing path.' }),
      to: t.arg.string({ required: true, description: 'New path; its directory must exist.' }),
    },
    resolve: (_root, args, ctx) => renameFile(ctx, args.id, args.from, args.to),
  }),
);
