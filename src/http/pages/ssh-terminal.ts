import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, badRequest, withHeaders } from '../../errors.ts';
import { terminalHello, terminalLine } from '../../modules/hosting/ssh-terminal.ts';
import { headerOf } from '../admission/admit.ts';
import { parseJsonBody, readBody } from '../request/body.ts';
import { clientAddress } from '../request/client-address.ts';
import { htmlPage, securityHeaders, sendHtml } from '../dashboard/html.ts';
import { rateLimitHeaders } from '../admission/rate-limit.ts';
import { requestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/respond.ts';
import { noRoute, Router } from '../request/router.ts';
import { servedFilePath } from '../served-files.ts';

const SCRIPT = servedFilePath('ssh-terminal.js');

const ROUTES = new Router([
  { method: 'GET', path: '/ssh-terminal/terminal.js', name: 'script' },
  { method: 'GET', path: '/ssh-terminal/:sessionId', name: 'page' },
  { method: 'POST', path: '/ssh-terminal/:sessionId/hello', name: 'hello' },
  { method: 'POST', path: '/ssh-terminal/:sessionId/line', name: 'line' },
]);

/** The page carries no secret: the token stays in the URL's fragment, which its script reads and sends as a header. */
const PAGE = htmlPage(
  'Terminal',
  `<main class="narrow terminal"><h1>Terminal</h1><p id="terminal-state" role="status">Connecting…</p><pre id="terminal-screen" class="terminal-screen" tabindex="0" aria-label="Terminal output" aria-live="polite"></pre><form id="terminal-form" class="inline"><label class="grow">Command<input id="terminal-line" name="line" autocomplete="off" autocapitalize="off" spellcheck="false" disabled></label><button type="submit" id="terminal-run" disabled>Run</button></form><noscript>The terminal needs JavaScript.</noscript><script src="/ssh-terminal/terminal.js"></script></main>`,
);

/**
 * The browser-SSH terminal a launched session's URL opens (`/ssh-terminal/<session>#token=…`):
 * the page, its script, and the two calls the script makes with the token in `X-Terminal-Token`
 * (never in a URL, so never in a log): hello (is the session open?) and line (run one command in
 * the simulated shell, src/provider/hosting/simulated-shell.ts). Counted per client address.
 */
export function createTerminalHandler(app: App) {
  return async function handleTerminal(req: IncomingMessage, res: ServerResponse, urlPath: string): Promise<void> {
    const method = req.method ?? 'GET';
    const scope = requestScope.getStore()!;
    scope.operation = 'ssh-terminal';
    for (const [k, v] of Object.entries(securityHeaders(app))) res.setHeader(k, v);
    const limit = await app.limits.consume('default', `terminal:${clientAddress(app.config, req)}`);
    const headers = rateLimitHeaders(limit);
    try {
      const match = ROUTES.match(method, urlPath);
      if (match.kind !== 'found') throw noRoute(match, method, urlPath);
      if (!limit.allowed) throw new ApiError(429, `Rate limit of ${limit.limit} requests per minute exceeded.`);
      const { name } = match.route;
      scope.operation = `ssh-terminal ${name}`;
      if (name === 'script') {
        const js = await fs.promises.readFile(SCRIPT);
        res.writeHead(200, {
          ...headers,
          'Content-Type': 'text/javascript; charset=utf-8',
          'Content-Length': js.length,
          'Cache-Control': 'no-cache',
        });
        return void res.end(js);
      }
      if (name === 'page') return sendHtml(res, 200, PAGE, headers);
      const token = headerOf(req, 'x-terminal-token') ?? '';
      const { sessionId } = match.params;
      if (name === 'hello') return sendJson(res, 200, await terminalHello(app, sessionId, token), headers);
      const body = parseJsonBody(req, await readBody(req, 16 * 1024));
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw badRequest('The request body must be a JSON object: {"line": "ls", "cwd": "/"}.');
      sendJson(res, 200, await terminalLine(app, sessionId, token, body as Record<string, unknown>), headers);
    } catch (err) {
      // Shaped by the respond stage, with this route's rate-limit headers.
      const api = apiErrorOf(err);
      throw api ? withHeaders(api, headers) : err;
    }
  };
}
