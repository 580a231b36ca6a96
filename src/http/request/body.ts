import type { IncomingMessage } from 'node:http';
import { waitOutside } from '../../core/outside-waits.ts';
import { ApiError } from '../../errors.ts';

/**
 * Reads a request body up to `limit` bytes; more → 413 without reading the rest. A body still
 * on its way is a wait on the client, who chooses its pace: the request holds no slot of the
 * instance meanwhile (waitOutside), so slow senders cannot fill it. One that has arrived whole
 * with its headers, as most do, is read at once.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new ApiError(413, `The request body is larger than ${limit} bytes.`);
  return req.complete ? collect(req, limit) : waitOutside(() => collect(req, limit));
}

async function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, `The request body is larger than ${limit} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i;

/** Parses a JSON body: wrong content type → 415, malformed → 400. An empty body is `undefined`. */
export function parseJsonBody(req: IncomingMessage, body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type))
    throw new ApiError(415, `Content-Type must be application/json (got "${type || 'none'}").`);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ApiError(400, `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
