import { parseJsonBody, readBody } from '../request/body.ts';
import { type Exchange, traitsOf } from './exchange.ts';

/**
 * Stage 6, body: a JSON body read within the size limit (413 beyond it, without reading the
 * rest) and parsed once (415 for another content type, 400 for malformed JSON), for the routes
 * that take one. A GET or HEAD has none; binary uploads and pages read their own.
 */
export async function body(x: Exchange): Promise<void> {
  // MCP takes messages by POST only; its other methods are refused unread (the MCP executor).
  const takesJson = traitsOf(x.route).jsonBody && (x.route?.kind !== 'mcp' || x.method === 'POST');
  if (!takesJson || x.method === 'GET' || x.method === 'HEAD') return;
  x.body = parseJsonBody(x.req, await readBody(x.req, x.app.config.bodyLimitBytes));
}
