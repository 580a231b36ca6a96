import path from 'node:path';
import busboy from 'busboy';
import { waitOutside } from '../../core/outside-waits.ts';
import { ApiError, badRequest } from '../../errors.ts';
import type { BinaryRequest, BinaryResult, BinaryRouteDeclaration } from '../../schema/binary-operation.ts';
import { openBackup } from './backups.ts';
import { downloadFile, prepareUpload, receiveUpload, uploadRecorded } from './files.ts';
import { HOSTING_FILE_TOO_LARGE, HOSTING_PROVISIONING, SITE_WRITE_REFUSALS, type HostingContext } from './service.ts';

/** The hosting binary streams: file upload (multipart, streamed to disk), file download, backup download. */
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.php': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.sql': 'application/sql',
  '.woff2': 'font/woff2',
  '.mp4': 'video/mp4',
};

const OTHER = 'application/octet-stream';

function contentTypeOf(name: string): string {
  return MIME[path.extname(name).toLowerCase()] ?? OTHER;
}

function hostingCtx(r: BinaryRequest): HostingContext {
  return { db: r.db, principal: r.principal, app: r.app };
}

/**
 * Upload: the multipart body is parsed as a stream (busboy); the part named `file` goes to a
 * temp file inside the account's directory and is renamed into place once complete. Over
 * HOSTING_UPLOAD_LIMIT_BYTES → 413 and the partial file is removed. The rest of the body is
 * read and discarded before answering, so the client always gets the response.
 */
async function upload(r: BinaryRequest): Promise<BinaryResult> {
  const id = r.params.id;
  const target = r.query.get('path');
  const type = r.req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw new ApiError(415, `Content-Type must be multipart/form-data with a "file" field (got "${type || 'none'}").`);
  const ctx = hostingCtx(r);
  const limit = r.app.config.hostingUploadLimitBytes;
  // The account and the target path are checked before the body is read (again with the file's name once it is known).
  const prepared = await prepareUpload(ctx, id, target);

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: r.req.headers,
      preservePath: true,
      defParamCharset: 'utf8',
      limits: { files: 1, fileSize: limit + 1, fields: 10, fieldSize: 1024, parts: 11 },
    });
  } catch (err) {
    throw badRequest(`The multipart body is malformed: ${(err as Error).message}.`, 'file');
  }
  let work: Promise<unknown> | undefined;
  let fileStream: (NodeJS.ReadableStream & { destroy(err?: Error): void }) | undefined;
  parser.on('file', (name, file, info) => {
    // busboy also destroys the file stream with the parser's error (e.g. a body cut short): that
    // error is reported through the parser's, so one without a listener must not crash the process.
    file.on('error', () => {});
    if (name !== 'file' || work) {
      file.resume();
      return;
    }
    fileStream = file;
    work = receiveUpload(ctx, prepared, info.filename ?? '', file as typeof file & { truncated?: boolean });
    // Whatever happens to the file, keep reading the body so the parser reaches its end.
    work.catch(() => file.resume());
  });
  // Far more than the limit (plus multipart overhead): stop reading instead of draining forever.
  const hardCap = limit * 2 + 1024 * 1024;
  let received = 0;
  const body = new Promise<void>((resolve, reject) => {
    parser.once('close', resolve);
    // `on`, not `once`: busboy can emit more than one error, and an unheard one is an uncaught exception.
    parser.on('error', (err: Error) => reject(badRequest(`The multipart body is malformed: ${err.message}.`, 'file')));
    r.req.once('aborted', () => reject(badRequest('The upload was interrupted.', 'file')));
    r.req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > hardCap) {
        r.closeConnection();
        reject(new ApiError(413, `The file is larger than the upload limit of ${limit} bytes.`));
        r.req.unpipe(parser);
        r.req.pause();
        // The parser will never see the end now: end the file too, so the upload's temporary file is removed.
        fileStream?.destroy(new Error('upload cut off'));
      }
    });
    r.req.pipe(parser);
  });
  try {
    // The client sends at its own pace: receiving holds no slot of the instance (waitOutside).
    await (r.req.complete ? body : waitOutside(() => body));
  } catch (err) {
    // Answer only once the upload has given up and removed its temporary file: it may still be
    // opening that file when the body is refused, and the client must not see it afterwards.
    fileStream?.destroy(new Error('upload refused'));
    await work?.catch(() => {});
    throw err;
  }
  if (!work) throw badRequest('The multipart body has no "file" field.', 'file');
  const uploaded = await work;
  await uploadRecorded(ctx, prepared);
  return { kind: 'json', status: 200, body: uploaded };
}

async function download(r: BinaryRequest): Promise<BinaryResult> {
  const file = await downloadFile(hostingCtx(r), r.params.id, r.query.get('path'));
  return { kind: 'attachment', file, contentType: contentTypeOf(file.name) };
}

async function backupDownload(r: BinaryRequest): Promise<BinaryResult> {
  return {
    kind: 'attachment',
    file: await openBackup(hostingCtx(r), r.params.id, r.params.bid),
    contentType: 'application/gzip',
  };
}

const HOSTING_ID = { description: 'The hosting account id.', noun: 'hosting' };

export const hostingBinaryRoutes: BinaryRouteDeclaration[] = [
  {
    method: 'POST',
    path: '/hosting/:id/files/upload',
    params: { id: HOSTING_ID },
    scope: 'hosting:manage',
    operationId: 'hostingFileUpload',
    summary: 'Upload a file',
    description:
      'Upload a file (multipart/form-data, field "file") into a directory of the site, or to a file path; an existing file is replaced. The directory must exist. 413 when the file is larger than the upload limit, 415 when the body is not multipart. Fires `hosting.panel.changed`.',
    query: [
      {
        name: 'path',
        required: false,
        description: 'Target directory (the file keeps its name) or target file path; default /public_html.',
        example: '/public_html/images',
      },
    ],
    upload: {
      field: 'file',
      description:
        'The file; its multipart filename names it when path is a directory. At most HOSTING_UPLOAD_LIMIT_BYTES (default 50 MiB).',
    },
    response: { contentTypes: ['application/json'], description: 'The uploaded file (HostingFile).' },
    refuses: [...SITE_WRITE_REFUSALS, HOSTING_FILE_TOO_LARGE],
    handle: upload,
  },
  {
    method: 'GET',
    path: '/hosting/:id/files/download',
    params: { id: HOSTING_ID },
    scope: 'hosting:manage',
    operationId: 'hostingFileDownload',
    summary: 'Download a file',
    description:
      'Download a file of the site, streamed as an attachment. 404 when nothing is at the path, 400 when it is a directory.',
    query: [
      {
        name: 'path',
        required: true,
        description: 'File, absolute inside the account.',
        example: '/public_html/index.html',
      },
    ],
    response: {
      contentTypes: [...new Set([...Object.values(MIME), OTHER])],
      description:
        "The file bytes, with Content-Disposition: attachment (RFC 6266), as the type its name's extension implies (application/octet-stream when none is known).",
    },
    refuses: [HOSTING_PROVISIONING],
    handle: download,
  },
  {
    method: 'GET',
    path: '/hosting/:id/backups/:bid/download',
    params: { id: HOSTING_ID, bid: { description: 'The backup id.' } },
    scope: 'hosting:manage',
    operationId: 'hostingBackupDownload',
    summary: 'Download a backup',
    description: 'Download a backup as a gzip tarball (home/ and mysql/), streamed as an attachment.',
    query: [],
    response: { contentTypes: ['application/gzip'], description: 'The .tar.gz archive.' },
    handle: backupDownload,
  },
];
