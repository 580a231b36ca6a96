import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  inputRequired,
  type ServerEventBus,
  inputResponse,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallToolResult, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { headerOf } from '../http/admission/admit.ts';
import type { ToolSelection, Tool } from './catalog.ts';
import type { HandlerContext, ModernRound, Register } from './handlers.ts';
import type { McpTasks } from './tasks.ts';
import { declaresTasks, serveTasksExtension } from './tasks-extension.ts';
import {
  type CodeModeToolRunner,
  MCP_CAPABILITIES,
  mcpInstructions,
  registerMcpHandlers,
  type ToolRunner,
} from './server.ts';

/**
 * Protocol revision 2026-07-28 beside 2025-11-25 on the same /mcp (docs/REFERENCE.md: MCP,
 * Protocol revisions), through the 2.x SDK (`@modelcontextprotocol/server`): a request that
 * carries the per-request `_meta` envelope (`io.modelcontextprotocol/protocolVersion`) — a
 * `server/discover` probe among them — is the 2.x SDK's, strictly modern (`legacy: 'reject'`),
 * with a server built for this request's credential after the pipeline authorized it; anything
 * else stays with the 1.x SDK's stateless transport (http.ts), whose elicitation of the person
 * the 2.x SDK's stateless legacy serving cannot carry.
 */

/**
 * Whether the request is 2026-07-28's: the 2.x SDK's own classification (`classifyInboundRequest`,
 * what its `isLegacyRequest` runs), on the Node request's standard headers and the body the
 * pipeline parsed — no Fetch object for a request the 1.x SDK serves. A claim the SDK refuses
 * (a header that disagrees with the body) is its to answer, so it counts as modern.
 */
export function isModernRequest(req: IncomingMessage, body: unknown): boolean {
  if (body === undefined) return false;
  const header = (name: string) => headerOf(req, name) ?? undefined;
  const outcome = classifyInboundRequest({
    httpMethod: (req.method ?? 'POST').toUpperCase(),
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  });
  return outcome.kind !== 'legacy';
}

/**
 * The one Fetch `Request` of a 2026-07-28 exchange, as the 2.x SDK's handler takes it (it has no
 * other public entry: docs/DESIGN.md): the Node request's headers, the body the pipeline parsed
 * (handed over as `parsedBody` too, never read again), and `signal` for a client that hangs up.
 */
function webRequestOf(req: IncomingMessage, body: unknown, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = new URL(req.url ?? '/mcp', 'http://127.0.0.1');
  return new Request(url, { method: req.method ?? 'POST', headers, body: JSON.stringify(body ?? null), signal });
}

/** Headers of the connection, not of the message (the body is re-serialized: its length changes). */
const SKIPPED_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'host']);

/**
 * Serves one 2026-07-28 request: the 2.x SDK's handler validates the envelope and the standard
 * headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`: a mismatch is -32020), answers
 * `server/discover`, stamps `resultType` and the server's identity, and runs `server`'s handlers.
 */
export async function serveModern(
  req: IncomingMessage,
  body: unknown,
  res: ServerResponse,
  server: () => Server,
  /** A `subscriptions/listen`'s change events (resource-updates.ts); `end` ends its stream, gracefully. */
  updates?: (end: () => void) => ServerEventBus,
): Promise<void> {
  const aborted = new AbortController();
  let handler: ReturnType<typeof createMcpHandler> | undefined;
  // Closing the handler ends its listen streams with the empty result the spec calls graceful.
  const bus = updates?.(() => void handler?.close());
  handler = createMcpHandler(server, { legacy: 'reject', ...(bus ? { bus } : {}) });
  res.on('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  try {
    const response = await handler.fetch(webRequestOf(req, body, aborted.signal), { parsedBody: body });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) await pipeline(Readable.fromWeb(response.body as never), res);
    else res.end();
  } finally {
    await handler.close();
  }
}

/**
 * The 2026-07-28 MCP server for one request's credential: the same handlers as 2025-11-25's
 * (server.ts), the same capabilities, server info and instructions (server/discover carries them).
 * A tools/call learns its round (ModernRound); one that a person must confirm, from a client that
 * declared elicitation, answers `input_required` (see askedInBand).
 */
export function createModernMcpServer(
  catalog: readonly Tool[],
  selection: ToolSelection,
  run: ToolRunner,
  runCodeMode: CodeModeToolRunner,
  info: Implementation,
  tasks?: McpTasks,
): Server {
  const instructions = mcpInstructions(catalog, selection);
  const server = new Server(info, { capabilities: MODERN_CAPABILITIES, ...(instructions ? { instructions } : {}) });
  if (tasks) serveTasksExtension(server, tasks.find);
  const register: Register = (method, handler) =>
    server.setRequestHandler(
      method as 'tools/list',
      (async (request: { params?: unknown }, ctx: ServerContext) => {
        const context: HandlerContext = { requestId: ctx.mcpReq.id, modern: roundOf(ctx) };
        // A resource not found (2025-11-25: -32002) the SDK answers -32602, as 2026-07-28 says.
        const result = await (handler as (p: unknown, c: HandlerContext) => Promise<unknown>)(request.params, context);
        return method === 'tools/call' ? askedInBand(result as CallToolResult, context.modern) : result;
      }) as never,
    );
  registerMcpHandlers(register, catalog, selection, run, runCodeMode, tasks);
  return server;
}

/** 2026-07-28 adds resource updates: `subscriptions/listen` (resource-updates.ts). */
const MODERN_CAPABILITIES = { ...MCP_CAPABILITIES, resources: { subscribe: true } };

/** The embedded request's key in `inputRequests` and `inputResponses`. */
const CONFIRM_KEY = 'confirm';

/** What this request's `_meta` and retry fields say: can its client be asked, and what did the person answer. */
function roundOf(ctx: ServerContext): ModernRound {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { form?: object; url?: object } };
  const elicitation = capabilities?.elicitation;
  const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  const state = ctx.mcpReq.requestState();
  return {
    canAsk: Boolean(elicitation && (elicitation.form || !elicitation.url)),
    tasks: declaresTasks(envelope),
    ...(view.kind === 'elicit' ? { answer: view.action } : {}),
    ...(typeof state === 'string' ? { requestState: state } : {}),
  };
}

/**
 * A call that did not run for want of a person's yes (428 CONFIRMATION_REQUIRED, confirmation.ts),
 * from a client that declared elicitation, answers instead `input_required`: the question (the
 * quote) as a form elicitation with no fields (the answer is the action), and the confirmation
 * token as `requestState`, which the client echoes with the person's answer when it retries.
 */
function askedInBand(result: CallToolResult, round: ModernRound | undefined): unknown {
  if (!round?.canAsk || !result.isError) return result;
  const body = result.structuredContent as { code?: unknown; quote?: unknown; confirmation?: unknown } | undefined;
  if (body?.code !== 'CONFIRMATION_REQUIRED' || typeof body.confirmation !== 'string' || typeof body.quote !== 'string')
    return result;
  return inputRequired({
    inputRequests: {
      [CONFIRM_KEY]: inputRequired.elicit({
        message: body.quote,
        requestedSchema: { type: 'object', properties: {} },
      }),
    },
    requestState: body.confirmation,
  });
}
