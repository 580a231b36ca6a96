import type { Readable } from 'node:stream';
import { badRequest } from '../../errors.ts';
import { activeHosting, driver, siteQuota, type HostingContext } from './service.ts';
import { siteChanged } from './panel-events.ts';

/** The file manager (docs/REFERENCE.md: Web hosting). Paths are absolute inside the account: "/" is its home. */
const DEFAULT_LIST_PATH = '/public_html';
/** Entries one listing returns; `truncated` says when a directory holds more. */
const LIST_MAX_ENTRIES = 1000;
/** Largest file files/read returns as text (download anything larger). */
export const READ_MAX_BYTES = 1024 * 1024;
/** Largest text files/write accepts (the JSON body limit applies too). */
export const WRITE_MAX_BYTES = 1024 * 1024;

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw badRequest(`${field} is required.`, field);
  return value;
}

export async function listFiles(ctx: HostingContext, id: string, path?: string | null) {
  await activeHosting(ctx.db, id);
  return driver(ctx.app.hosting.listDir(id, path ?? DEFAULT_LIST_PATH, LIST_MAX_ENTRIES));
}

export async function readFile(ctx: HostingContext, id: string, path: unknown) {
  await activeHosting(ctx.db, id);
  return driver(ctx.app.hosting.readText(id, text(path, 'path'), READ_MAX_BYTES));
}

export async function writeFile(ctx: HostingContext, id: string, path: unknown, content: unknown) {
  const body = text(content, 'content');
  if (Buffer.byteLength(body) > WRITE_MAX_BYTES)
    throw badRequest(`content must be at most ${WRITE_MAX_BYTES} bytes; upload larger files.`, 'content');
  const row = await activeHosting(ctx.db, id);
  const written = await driver(ctx.app.hosting.writeText(id, text(path, 'path'), body, await siteQuota(ctx.db, row)));
  await siteChanged(ctx.db, row, 'written', ctx.app.clock.now());
  return written;
}

export async function deleteFile(ctx: HostingContext, id: string, path: unknown, recursive?: boolean | null) {
  const row = await activeHosting(ctx.db, id);
  const removed = await driver(ctx.app.hosting.remove(id, text(path, 'path'), recursive === true));
  await siteChanged(ctx.db, row, 'deleted', ctx.app.clock.now());
  return { ...removed, deleted: true };
}

export async function makeDirectory(ctx: HostingContext, id: string, path: unknown) {
  const row = await activeHosting(ctx.db, id);
  const made = await driver(ctx.app.hosting.mkdir(id, text(path, 'path'), await siteQuota(ctx.db, row)));
  await siteChanged(ctx.db, row, 'created', ctx.app.clock.now());
  return made;
}

export async function renameFile(ctx: HostingContext, id: string, from: unknown, to: unknown) {
  const row = await activeHosting(ctx.db, id);
  const renamed = await driver(ctx.app.hosting.rename(id, text(from, 'from'), text(to, 'to')));
  await siteChanged(ctx.db, row, 'renamed', ctx.app.clock.now());
  return renamed;
}

/**
 * An upload in three steps, so that the request holds a slot of the instance only while it works
 * on the database (binary.ts): checked before its body is read (the account, the target path,
 * the site's quota), the file received from the client (file work only), then recorded.
 */
export async function prepareUpload(ctx: HostingContext, id: string, path: string | null) {
  const row = await activeHosting(ctx.db, id);
  const target = path ?? DEFAULT_LIST_PATH;
  await driver(ctx.app.hosting.uploadTarget(id, target, null));
  return { id, target, row, quota: await siteQuota(ctx.db, row) };
}
type PreparedUpload = Awaited<ReturnType<typeof prepareUpload>>;

/** The file streamed from the client into the site (checked again with its name), within the limit and the quota. */
export function receiveUpload(
  ctx: HostingContext,
  upload: PreparedUpload,
  fileName: string,
  source: Readable & { truncated?: boolean },
) {
  const { id, target, quota } = upload;
  return driver(ctx.app.hosting.upload(id, target, fileName, source, ctx.app.config.hostingUploadLimitBytes, quota));
}

export async function uploadRecorded(ctx: HostingContext, upload: PreparedUpload): Promise<void> {
  await siteChanged(ctx.db, upload.row, 'uploaded', ctx.app.clock.now());
}

export async function downloadFile(ctx: HostingContext, id: string, path: unknown) {
  await activeHosting(ctx.db, id);
  return driver(ctx.app.hosting.download(id, text(path, 'path')));
}
