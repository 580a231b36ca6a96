import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, withHeaders } from '../../errors.ts';
import { attachServerConsole } from '../../modules/servers/console.ts';
import { escapeHtml, htmlPage, securityHeaders } from '../dashboard/html.ts';
import { rateLimitHeaders } from '../admission/rate-limit.ts';
import { requestScope } from '../request/request-scope.ts';
import { noRoute, Router } from '../request/router.ts';
import { servedFilePath, type ServedFile } from '../served-files.ts';

/** The WebSocket a console page connects to. */
export const SERVER_CONSOLE_SOCKET = '/server-console/socket';
/** How long a socket may wait for its ticket, the first message. */
const TICKET_WAIT_MS = 10_000;
/** A console with no keystroke for this long hangs up. */
const IDLE_MS = 15 * 60_000;
/** Close code of a refused ticket (the page says to open a new link). */
const REFUSED = 4401;

const ASSETS: Record<string, { file: ServedFile; type: string }> = {
  'console.js': { file: 'server-console.js', type: 'text/javascript; charset=utf-8' },
  'xterm.js': { file: 'xterm.js', type: 'text/javascript; charset=utf-8' },
  'xterm.css': { file: 'xterm.css', type: 'text/css; charset=utf-8' },
};

const ROUTES = new Router([
  { method: 'GET', path: '/server-console/assets/:name', name: 'asset' },
  { method: 'GET', path: '/server-console/:serverId', name: 'page' },
]);

/**
 * The web console: its page (`/server-console/<server>#ticket=…`, the URL POST
 * /v1/servers/:id/console returns), the page's assets (xterm.js from its package, copied into
 * dist/server/ by the build), and its WebSocket. The socket's first message is the ticket; a
 * ticket opens one connection once (the datacenter redeems it), then keystrokes go in and the
 * serial console's output comes back as text frames. Upgrades are counted per client address.
 */
export function createServerConsole(app: App) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const log = app.log.child({ transport: 'server-console' });
  const ownOrigin = new URL(app.config.publicBaseUrl).origin;

  async function handlePage(req: IncomingMessage, res: ServerResponse, urlPath: string): Promise<void> {
    const method = req.method ?? 'GET';
    const scope = requestScope.getStore()!;
    scope.operation = 'server-console';
    const nonce = randomBytes(16).toString('base64');
    for (const [k, v] of Object.entries(securityHeaders(app, [], { 'style-src': [`'nonce-${nonce}'`] })))
      res.setHeader(k, v);
    const limit = await app.limits.consume('default', `console:${req.socket.remoteAddress}`);
    const headers = rateLimitHeaders(limit);
    try {
      const match = ROUTES.match(method, urlPath);
      if (match.kind !== 'found') throw noRoute(match, method, urlPath);
      if (!limit.allowed) throw new ApiError(429, `Rate limit of ${limit.limit} requests per minute exceeded.`);
      scope.operation = `server-console ${match.route.name}`;
      if (match.route.name === 'asset') {
        const asset = ASSETS[match.params.name];
        if (!asset) throw new ApiError(404, 'No such asset.');
        const body = await fs.promises.readFile(servedFilePath(asset.file));
        res.writeHead(200, {
          ...headers,
          'Content-Type': asset.type,
          'Content-Length': body.length,
          'Cache-Control': 'no-cache',
        });
        return void res.end(body);
      }
      // The page carries no secret: the ticket stays in the URL's fragment, which the script reads.
      const html = htmlPage(
        'Web console',
        `<meta property="csp-nonce" content="${nonce}"><link rel="stylesheet" href="/server-console/assets/xterm.css"><main class="console-page"><h1>Console of ${escapeHtml(match.params.serverId)}</h1><p id="console-state" role="status">Connecting…</p><div id="console-screen" class="console-screen"></div><noscript>The console needs JavaScript.</noscript><script src="/server-console/assets/xterm.js"></script><script src="/server-console/assets/console.js"></script></main>`,
      );
      res.writeHead(200, {
        ...headers,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': Buffer.byteLength(html),
        'Cache-Control': 'no-store',
      });
      res.end(html);
    } catch (err) {
      // Shaped by the respond stage, with this route's rate-limit headers.
      const api = apiErrorOf(err);
      throw api ? withHeaders(api, headers) : err;
    }
  }

  /** An upgrade to SERVER_CONSOLE_SOCKET: from our own pages (or a client that sends no Origin), within the address's budget. */
  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) return void refuse('403 Forbidden');
    const limit = await app.limits.consume('default', `console:${req.socket.remoteAddress}`);
    if (!limit.allowed) return void refuse('429 Too Many Requests');
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws));
  }

  function serve(ws: WebSocket): void {
    const failed = (err: unknown) => {
      log.error({ err }, 'server console failed');
      ws.close(1011, 'Internal error');
    };
    ws.on('error', (err) => log.warn({ err }, 'server console socket error'));
    const waiting = setTimeout(() => ws.close(REFUSED, 'No ticket'), TICKET_WAIT_MS);
    ws.once('message', (data) => {
      clearTimeout(waiting);
      start(ws, String(data)).catch(failed);
    });
    ws.once('close', () => clearTimeout(waiting));
  }

  async function start(ws: WebSocket, first: string): Promise<void> {
    let ticket: unknown;
    try {
      ticket = JSON.parse(first).ticket;
    } catch {
      ticket = undefined;
    }
    const attached = typeof ticket === 'string' ? await attachServerConsole(app, ticket) : null;
    if (!attached)
      return void ws.close(REFUSED, 'Console ticket used, expired or unknown, or the server is not running');
    if (ws.readyState !== ws.OPEN) return;
    log.info({ serverId: attached.serverId }, 'server console attached');
    const { console: tty } = attached;
    let idle = setTimeout(() => ws.close(1000, 'Idle'), IDLE_MS);
    ws.once('close', () => clearTimeout(idle));
    ws.send(tty.greeting());
    // Keystrokes are fed in order: a login's password check is asynchronous.
    let queue = Promise.resolve();
    ws.on('message', (data) => {
      clearTimeout(idle);
      idle = setTimeout(() => ws.close(1000, 'Idle'), IDLE_MS);
      queue = queue
        .then(async () => {
          const keys = String(data);
          // At each line sent, the server must still run: a console of a stopped server hangs up.
          if (/[\r\n]/.test(keys)) {
            const now = await app.prisma.server.findUnique({
              where: { id: attached.serverId },
              select: { status: true },
            });
            if (now?.status !== 'running') {
              if (ws.readyState === ws.OPEN)
                ws.send(`\r\n[the server is ${now?.status ?? 'gone'}: console closed]\r\n`);
              return void ws.close(1000, 'The server is not running');
            }
          }
          const answer = await tty.input(keys, app.clock.now());
          if (answer.output && ws.readyState === ws.OPEN) ws.send(answer.output);
          if (answer.closed) ws.close(1000, 'Too many failed logins');
        })
        .catch((err: unknown) => {
          log.error({ err }, 'server console failed');
          ws.close(1011, 'Internal error');
        });
    });
  }

  return {
    handlePage,
    upgrade,
    async close(): Promise<void> {
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
