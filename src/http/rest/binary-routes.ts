import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { App } from '../../app-services.ts';
import { badRequest, lacksScope, unauthorized } from '../../errors.ts';
import type { Principal } from '../../modules/auth/service.ts';
import { AREA_RUNTIMES } from '../../modules/runtimes.ts';
import { type BinaryResult, type BinaryRoute, runBinaryRoute } from '../../schema/binary-operation.ts';
import { sendJson } from '../request/respond.ts';

/** Every area's binary routes (handed in by its runtime, named by its manifest). */
export function binaryRoutes(): BinaryRoute[] {
  return AREA_RUNTIMES.flatMap((r) => r.binaryRoutes ?? []);
}

/**
 * Runs a binary route matched by the /v1 router: checks the credential, its scope and the query
 * string exactly like the schema's operations, then writes the route's result.
 */
export async function dispatchBinary(
  app: App,
  principal: Principal | null,
  route: BinaryRoute,
  params: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  headers: Record<string, string>,
): Promise<void> {
  if (!principal) throw unauthorized();
  if (!principal.scopes.has(route.scope)) throw lacksScope(route.scope);
  // PostgreSQL cannot store U+0000 and the file system cannot name it: refused like the schema's operations do.
  for (const [name, value] of [...Object.entries(params), ...url.searchParams]) {
    if (value.includes('\u0000')) throw badRequest(`${name} must not contain the NUL character (U+0000).`, name);
  }
  const known = new Set(route.query.map((q) => q.name));
  for (const name of url.searchParams.keys()) {
    if (!known.has(name)) throw badRequest(`Unknown query parameter "${name}".`, name);
  }
  for (const q of route.query) {
    if (q.required && !url.searchParams.get(q.name)) throw badRequest(`${q.name} is required.`, q.name);
  }
  const result = await runBinaryRoute(route, {
    app,
    principal,
    req,
    params,
    query: url.searchParams,
    closeConnection: () => res.setHeader('Connection', 'close'),
  });
  if (result.kind === 'json') sendJson(res, result.status, result.body, headers);
  else await sendAttachment(res, headers, result);
}

/**
 * `Content-Disposition: attachment` per RFC 6266: an ASCII `filename` fallback (other
 * characters, quotes, backslashes and percent signs replaced by "_") and the exact name as
 * `filename*=UTF-8''<percent-encoded>` (RFC 8187).
 */
function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Streams a file as an attachment: Content-Type, Content-Length and Content-Disposition set before the first byte. */
async function sendAttachment(
  res: ServerResponse,
  headers: Record<string, string>,
  { file, contentType }: Extract<BinaryResult, { kind: 'attachment' }>,
): Promise<void> {
  const stream = file.open();
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  res.writeHead(200, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(file.sizeBytes),
    'Content-Disposition': contentDisposition(file.name),
    'Cache-Control': 'private, no-store',
  });
  try {
    await pipeline(stream, res);
  } catch {
    // The client went away or the file changed under us: the response cannot be repaired now.
    res.destroy();
  }
}
