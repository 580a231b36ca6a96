import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';

/** Keep-alive: a ping this often, and a socket that has not answered by the next one is dropped. */
const KEEP_ALIVE_MS = 12_000;

export interface SocketExtra {
  socket: WebSocket;
  request: IncomingMessage;
}

/**
 * graphql-ws's server on `ws` sockets: what `graphql-ws/use/ws` does, with our logger. That
 * adapter writes failures with console.error (raw text and stacks on the process's output,
 * where a crafted message could forge a log line) and closes the socket with 4500 and the
 * error's message as the reason. Here a failure is logged through pino (JSON-escaped) and the
 * close reason is generic. Client mistakes never get here: onSubscribe answers them in protocol.
 */
export function serveGraphQLWs<E extends SocketExtra>(
  wss: WebSocketServer,
  options: ServerOptions<Record<string, unknown>, E>,
  log: Logger,
  extraOf: (socket: WebSocket, request: IncomingMessage) => E,
) {
  const server = makeServer(options);
  wss.options.handleProtocols = handleProtocols;
  wss.on('connection', (socket, request) => {
    const fail = (err: unknown, what: string) => {
      log.error({ err }, what);
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    };
    socket.once('error', (err) => fail(err, 'graphql-ws socket error'));
    let pongWait: NodeJS.Timeout | undefined;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, KEEP_ALIVE_MS);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (err) => (err ? reject(err) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data) => {
            cb(String(data)).catch((err: unknown) => fail(err, 'graphql-ws message failed'));
          }),
      },
      extraOf(socket, request),
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(ping);
      closed(code, String(reason)).catch((err: unknown) => log.error({ err }, 'graphql-ws close failed'));
    });
  });
}
