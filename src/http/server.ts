import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { errorBody, STATUS_NAMES } from '../errors.ts';

const HEADERS_TIMEOUT_MS = 15_000;

/**
 * The HTTP server: Node's listener with the API's timeouts, every request handed to the
 * pipeline (api.ts), and the answers to requests Node's parser refuses before any handler runs.
 */
export function createHttpServer(
  app: App,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): http.Server {
  // Timeouts are checked this often (Node's default, 30 s, would let a request overstay by as much).
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    // The pipeline settles every failure of a stage itself; this is the net under the net.
    handle(req, res).catch((err) => {
      app.log.error({ err }, 'request pipeline failed');
      res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  // A client gets 15 s to send its headers and config.requestTimeoutMs for the whole request,
  // body included, instead of Node's 300 s: a slow sender holds a socket and a body buffer for
  // that long. Node answers 408 (the clientError handler below) and closes.
  server.requestTimeout = app.config.requestTimeoutMs;
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, app.config.requestTimeoutMs || HEADERS_TIMEOUT_MS);
  // Requests node's parser refuses before any handler runs (headers or URL over 16 KB, malformed
  // HTTP) still get the error object, then the connection closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const status =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : err.code === 'HPE_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    const body = JSON.stringify(
      errorBody(
        status,
        status === 431
          ? 'The request line and headers are larger than 16 KB.'
          : status === 408
            ? 'The request took too long to arrive.'
            : 'Malformed HTTP request.',
      ),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_NAMES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
