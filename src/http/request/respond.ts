import type { ServerResponse } from 'node:http';
import { type ApiError, codeOf, errorBody, headersOf, paramOf } from '../../errors.ts';

export type Surface = 'rest' | 'graphql' | 'admin' | 'ops' | 'mcp';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A JSON answer, for the respond stage to send. */
export function jsonAnswer(status: number, body: unknown): Answer {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
}

/** An error in the shape its surface speaks: the spec's error object, or GraphQL's `errors`. */
export function sendError(
  res: ServerResponse,
  surface: Surface,
  error: ApiError,
  headers: Record<string, string> = {},
): void {
  const all = { ...headers, ...headersOf(error) };
  if (surface === 'graphql') {
    sendJson(
      res,
      error.status,
      { errors: [{ message: error.message, extensions: { code: error.extensions.code, status: error.status } }] },
      all,
    );
  } else {
    sendJson(res, error.status, errorBody(error.status, error.message, paramOf(error), codeOf(error)), all);
  }
}

/** An answer ready for the socket: a Fetch Response (yoga's, sofa's) read once. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  /** JSON and text as the string the response already holds; anything else as bytes. */
  body: string | Buffer;
}

/**
 * Reads a Fetch Response once. API answers are small JSON documents, so they are buffered
 * (yoga's ponyfilled streams are not node's); a JSON or text body is taken as the string the
 * ponyfill was given, with no copy into bytes and back.
 */
export async function readAnswer(response: Response): Promise<Answer> {
  // Names in lower case: whatwg-node's Headers keep the case they were given (yoga's `Content-Type`).
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  const type = headers['content-type'];
  const textual = typeof type === 'string' && /^(application\/(graphql-response\+)?json|text\/)/i.test(type);
  const body = textual ? await response.text() : Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers, body };
}

/** True for an answer that streams (a GraphQL subscription over SSE, incremental delivery): sent as it comes, never buffered. */
export function isStreamed(response: Response): boolean {
  return /^(text\/event-stream|multipart\/mixed)/i.test(response.headers.get('content-type') ?? '');
}

/**
 * Sends a streamed answer part by part as it comes, adding `extra` headers. The client hanging
 * up cancels the stream, which ends the subscription behind it.
 */
export async function streamAnswer(
  res: ServerResponse,
  response: Response,
  extra: Record<string, string>,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  for (const name in extra) headers[name.toLowerCase()] = extra[name];
  delete headers['content-length'];
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body!.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.on('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      // A slow reader: wait until the socket drains (or closes) before taking the next part.
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go).on('close', go);
        });
    }
  } finally {
    res.off('close', cancel);
    res.end();
  }
}

/** Writes an answer to the node response, adding `extra` headers (rate limit, idempotency: they win over the answer's). */
export function sendAnswer(res: ServerResponse, answer: Answer, extra: Record<string, string>): void {
  const headers = { ...answer.headers };
  for (const name in extra) headers[name.toLowerCase()] = extra[name];
  // A 304 has no content, and its Content-Length could only be the 200's (RFC 9110 §8.6): none.
  if (answer.status === 304) delete headers['content-length'];
  else headers['content-length'] = String(Buffer.byteLength(answer.body));
  res.writeHead(answer.status, headers);
  res.end(answer.status === 304 ? undefined : answer.body);
}
