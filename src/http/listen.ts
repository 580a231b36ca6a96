import type http from 'node:http';
import net from 'node:net';

/**
 * The listening sockets of the HTTP server. libuv takes one new connection per listening socket
 * per event-loop turn (libuv/libuv#3696), so a busy instance, whose turns last tens of
 * milliseconds, accepts a few dozen connections a second: a burst of new clients waits in the
 * kernel's queue, unseen by the overload limiters, until the clients give up. On Linux
 * LISTEN_SOCKETS sockets share the port (SO_REUSEPORT, Node's `reusePort`); the kernel spreads
 * new connections among them, each takes one a turn and hands it to the one HTTP server, whose
 * timeouts, upgrades and connection tracking then apply as to its own.
 */
export const LISTEN_SOCKETS = 16;

/** A backlog for a burst (Node's default, 511, drops the rest's SYNs: their clients wait out TCP's retransmission). */
const LISTEN_BACKLOG = 4096;

export interface ListeningSockets {
  port: number;
  /**
   * Stops the extra sockets; resolves once the connections they handed over have closed (the
   * server's own socket closes with `server.close()`; `server.closeAllConnections()` ends both kinds).
   */
  close(): Promise<void>;
}

function listenOn(server: net.Server, options: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const closeServer = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Listens on `host`:`port` (0: a free port), with LISTEN_SOCKETS sockets on Linux. */
export async function listenHttp(server: http.Server, host: string, port: number): Promise<ListeningSockets> {
  if (process.platform !== 'linux') {
    await listenOn(server, { host, port, backlog: LISTEN_BACKLOG });
    return { port: (server.address() as net.AddressInfo).port, close: async () => {} };
  }
  // Taken first without SO_REUSEPORT, so a port another process holds (another instance of this
  // server included) is refused as before rather than shared; then given back and taken at once
  // by the sockets that share it (a port 0 asks the system for a free one).
  const probe = net.createServer();
  await listenOn(probe, { host, port });
  const chosen = (probe.address() as net.AddressInfo).port;
  await closeServer(probe);
  const shared = { host, port: chosen, backlog: LISTEN_BACKLOG, reusePort: true };
  await listenOn(server, shared);
  const extra: net.Server[] = [];
  for (let i = 1; i < LISTEN_SOCKETS; i++) {
    // noDelay: http.createServer's own default, no Nagle delay on a response.
    const acceptor = net.createServer({ noDelay: true }, (socket) => server.emit('connection', socket));
    await listenOn(acceptor, shared);
    extra.push(acceptor);
  }
  // A net.Server's close waits for the connections it accepted: those it handed over included.
  return { port: chosen, close: async () => void (await Promise.all(extra.map(closeServer))) };
}
