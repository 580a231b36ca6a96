import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app-services.ts';
import { ApiError, badRequest, codeOf, paramOf } from '../errors.ts';
import { headerOf } from '../http/admission/admit.ts';
import type { OperationExecutor } from '../http/executor/execute-operation.ts';
import { protectedResourceMetadataUrl } from '../http/oauth/oauth.ts';
import type { Exchange } from '../http/pipeline/exchange.ts';
import { LOOPBACK_HOSTNAMES } from '../http/dashboard/session-auth.ts';
import { refusalOf } from '../http/rest/rest-errors.ts';
import { yieldInstanceSlot } from '../http/pipeline/shed.ts';
import { DEFAULT_SCOPES } from '../scopes.ts';
import type { McpConfirm } from '../schema/context.ts';
import { ALL_TOOLSETS, IDEMPOTENCY_ARG, type Tool, type ToolSelection, type Toolset } from './catalog.ts';
import type { CodeModeRunner } from './code-mode.ts';
import { confirmationOf, quoteResult, takeConfirmation } from './confirmation.ts';
import { askPerson, asksPerson, deliverAnswer, rememberClient } from './elicitation.ts';
import { resourceLinkOf } from './resources.ts';
import { createModernMcpServer, isModernRequest, serveModern } from './modern.ts';
import { type CodeModeToolRunner, createMcpServer, type ToolRunner, toolError, toolResult } from './server.ts';
import { mcpServerInfo } from './server-info.ts';
import { resourceUpdates } from './resource-updates.ts';
import { mcpTasks } from './tasks.ts';
import { untrustedMeta } from './untrusted.ts';

/**
 * DNS rebinding (MCP transport spec), refused before anything else, against the public origin
 * (PUBLIC_BASE_URL) and loopback, never against what the request says of itself. The Host
 * header must name the public origin's host or a loopback name (any port): a page whose name
 * the attacker rebinds to this machine sends its own name as Host. An Origin, when present,
 * must be the public origin, or a loopback origin (http or https, any port: a local
 * inspector's page) arriving at a loopback Host; clients that are not browsers send none.
 */
export function mcpOriginRefusal(app: App, req: IncomingMessage): ApiError | undefined {
  const own = new URL(app.config.publicBaseUrl);
  const host = hostnameOf(req.headers.host);
  const loopbackHost = host !== undefined && LOOPBACK_HOSTNAMES.has(host);
  if (!loopbackHost && host !== own.hostname)
    return new ApiError(
      403,
      `This Host may not call the MCP endpoint: only ${own.hostname} (this service's public origin) or a loopback name.`,
    );
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const given = urlOf(origin);
  if (given?.origin === own.origin) return undefined;
  if (loopbackHost && given && /^https?:$/.test(given.protocol) && LOOPBACK_HOSTNAMES.has(given.hostname))
    return undefined;
  return new ApiError(
    403,
    "This Origin may not call the MCP endpoint: only this service's public origin, a loopback origin on a loopback Host, or no Origin header.",
  );
}

/** The Host header's name (no port), `undefined` when it is missing or more than a host and port. */
function hostnameOf(header: string | undefined): string | undefined {
  return header && /^[^@/?#\\\s]+$/.test(header) ? urlOf(`http://${header}`)?.hostname : undefined;
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether an MCP request spends a point of the credential's request budget (the count stage,
 * src/http/pipeline/count.ts, asks; nothing else decides it). Free: a notification (no `id`),
 * `initialize`, `ping`, `server/discover` and any listing (`tools/list`, and every other
 * `…/list`), and a GET or DELETE (refused with 405 unread: the SDK client's GET for a stream):
 * what a client sends to connect and find its way, an SDK session three before its first call;
 * and a response (a person's answer to an elicitation the server sent).
 * They still spend a point of the credential's MCP message budget (the admit stage), are
 * authenticated and pass the instance's admission like any request. Anything else spends one:
 * a call, a batch (refused whole, unrun), a body that is not one JSON-RPC message. Following a task
 * (tasks/get, tasks/result; 2026-07-28: tasks/update, tasks/cancel) is free too: its call was paid for.
 */
export function mcpMessageSpendsPoint(httpMethod: string, body: unknown): boolean {
  if (httpMethod !== 'POST') return false;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return true;
  const { method } = body as { method?: unknown };
  // A response answers a question this server asked (elicitation): the person's answer is not a call.
  if (method === undefined && 'id' in body && ('result' in body || 'error' in body)) return false;
  if (typeof method !== 'string') return true;
  if (!('id' in body)) return false;
  return !(FREE_METHODS.has(method) || method.endsWith('/list'));
}

// The tasks/ methods follow a call that was paid for (tasks.ts); the MCP message budget bounds them.
const FREE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tasks/get',
  'tasks/result',
  'tasks/update',
  'tasks/cancel',
]);

/** A 401 of /mcp carries the MCP challenge instead of the API's own; other errors pass as they are. */
export function mcpChallenged(app: App, req: IncomingMessage, error: ApiError): ApiError {
  if (error.status !== 401) return error;
  const challenge = mcpChallenge(app.config.publicBaseUrl, headerOf(req, 'authorization') !== null);
  return new ApiError(401, error.message, { headers: { 'WWW-Authenticate': challenge } });
}

/**
 * /mcp over Streamable HTTP, stateless, as the execute stage of the request pipeline
 * (src/http/api.ts): every POST carries the Bearer credential (API key or access token), was
 * admitted and counted (a call against the same per-credential limit as REST: the count stage),
 * and gets a fresh MCP server showing only the tools that credential may call.
 */
export function createMcpExecutor(catalog: readonly Tool[], execute: OperationExecutor, codeMode: CodeModeRunner) {
  /** How to end each open listen stream (2026-07-28 `subscriptions/listen`): a stopping instance ends them. */
  const listening = new Set<() => void>();
  return Object.assign(serveMcp, {
    /** Ends every open listen stream gracefully (the instance is stopping: clients listen again elsewhere). */
    endStreams: () => {
      for (const end of listening) end();
    },
  });

  async function serveMcp(x: Exchange): Promise<void> {
    const { req, res, body, limitHeaders } = x;
    const principal = x.principal;
    if (!principal) throw new ApiError(401, 'The MCP endpoint needs Authorization: Bearer <API key or access token>.');
    if (req.method !== 'POST')
      throw new ApiError(405, 'This MCP endpoint is stateless: send JSON-RPC messages with POST.', {
        headers: { Allow: 'POST' },
      });
    const selection = {
      scopes: principal.scopes,
      toolsets: parseToolsets(headerOf(req, 'x-mcp-toolsets')),
      readOnly: parseFlag(headerOf(req, 'x-mcp-readonly'), 'X-MCP-Readonly'),
      outputSchemas: parseFlag(headerOf(req, 'x-mcp-output-schemas'), 'X-MCP-Output-Schemas'),
    };
    for (const [k, v] of Object.entries(limitHeaders)) res.setHeader(k, v);
    // Protocol 2025-06-18 has no batches, and a batch would run many calls for one rate-limit point.
    if (Array.isArray(body))
      return sendJsonRpcError(res, 400, -32600, 'JSON-RPC batches are not supported: send one message per request.');

    const runCode: CodeModeToolRunner = (name, args) =>
      codeMode(name, args, { principal, readOnly: selection.readOnly });
    const info = mcpServerInfo(x.app.config.publicBaseUrl);
    const owner = { accountId: principal.accountId, credentialId: principal.credentialId };
    // Protocol 2026-07-28 (a request with the `_meta` envelope): the 2.x SDK's (modern.ts).
    if (isModernRequest(req, body)) {
      const run = toolRunner(x, catalog, execute, selection);
      const tasks = mcpTasks(x.app, owner, catalog, (tool, args) => run(tool, args, { requestId: 'task' }));
      // A listen stream stays open: a wait, so it gives back the instance's slot, not its credential's.
      const listens = isRequest(body, 'subscriptions/listen');
      if (listens) yieldInstanceSlot(x);
      let end: (() => void) | undefined;
      try {
        return await serveModern(
          req,
          body,
          res,
          () => createModernMcpServer(catalog, selection, run, runCode, info, tasks),
          listens
            ? (ends) => {
                end = ends;
                listening.add(ends);
                return resourceUpdates(x.app, principal, catalog, ends);
              }
            : undefined,
        );
      } finally {
        if (end) listening.delete(end);
      }
    }

    rememberClient(principal.credentialId, body);
    // The answer to a question a call of this credential is waiting on (elicitation.ts).
    if (deliverAnswer(principal.credentialId, body)) {
      res.writeHead(202).end();
      return;
    }
    const asks = asksPerson(principal.credentialId, body, (name) => catalog.find((t) => t.name === name));
    // A call that may ask the person answers as a stream: the question travels on it.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asks });
    const ask = (requestId: RequestId) =>
      askPerson(server, transport, principal.credentialId, requestId, () => {
        for (const give of x.releases.splice(0)) give();
      });
    const run = toolRunner(x, catalog, execute, selection, asks ? ask : undefined);
    const tasks = mcpTasks(x.app, owner, catalog, (tool, args) => run(tool, args, { requestId: 'task' }));
    // tasks/result waits for the task to settle: a wait, not work, so it holds no slot of the instance.
    if (isRequest(body, 'tasks/result')) yieldInstanceSlot(x);
    const server: Server = createMcpServer(catalog, selection, run, runCode, info, tasks);
    // A client gone before its answer: closing the server closes its transport and ends what
    // waits on it (a question to the person). An answered request leaves nothing waiting, and
    // the SDK's close would build an error for pending requests there are none of.
    res.on('close', () => {
      if (!res.writableFinished) void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

/**
 * Runs an operation tool through the one executor for this request's credential, in either
 * revision: the confirmation token taken out of its arguments (or, 2026-07-28, the person's answer
 * and the request state of the retried call), the Idempotency-Key (argument or header), and, for
 * a 2025-11-25 client that declared elicitation, `ask` (elicitation.ts).
 */
function toolRunner(
  x: Exchange,
  catalog: readonly Tool[],
  execute: OperationExecutor,
  selection: ToolSelection,
  ask?: (requestId: RequestId) => NonNullable<McpConfirm['ask']>,
): ToolRunner {
  const principal = x.principal!;
  return async (tool, args, context) => {
    x.scope.operation = `mcp ${tool.name}`;
    const { [IDEMPOTENCY_ARG]: idempotencyKey, ...rest } = args;
    const taken = takeConfirmation(tool, rest);
    if ('content' in taken) return taken;
    const { variables } = taken;
    const unknown = Object.keys(variables).filter((k) => !tool.operation.argumentNames.has(k));
    if (unknown.length) return toolError(400, `Unknown argument "${unknown[0]}".`);
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string')
      return toolError(400, `${IDEMPOTENCY_ARG} must be a string.`);
    const key = idempotencyKey ?? headerOf(x.req, 'idempotency-key');
    const confirm = confirmationOf(taken.token, context.modern);
    const result = await execute(tool.operation, variables, {
      principal,
      idempotencyKey: key && tool.operation.idempotencyKey ? key : null,
      readOnly: selection.readOnly ?? false,
      ...(tool.operation.meta.consequence
        ? { confirm: { ...confirm, ...(ask && !confirm.ask ? { ask: ask(context.requestId) } : {}) } }
        : {}),
    });
    const quote = quoteResult(result);
    if (quote) return quote;
    if (result.errors?.length) {
      const refusal = refusalOf(result.errors);
      return toolError(refusal.status, refusal.message, paramOf(refusal), codeOf(refusal));
    }
    const value = result.data?.[tool.operation.name];
    const answer = { ...toolResult(value, tool.wrapsResult), ...untrustedMeta(tool.untrusted) };
    const link = tool.wrapsResult ? undefined : resourceLinkOf(catalog, tool, value);
    return link ? { ...answer, content: [...answer.content, link] } : answer;
  };
}

function isRequest(body: unknown, method: string): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === method;
}

/** A refusal of the JSON-RPC message itself, as the SDK's transport words its own (no id: none was read). */
function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * The 401 challenge (RFC 6750 §3, RFC 9728 §5.1): where the protected resource metadata is,
 * and the scopes to ask for (the default set: the opt-in scopes are asked for by name). A
 * credential that was sent and refused adds error="invalid_token".
 */
function mcpChallenge(baseUrl: string, credentialSent: boolean): string {
  const params = [
    `realm="mcp"`,
    `resource_metadata="${protectedResourceMetadataUrl(baseUrl)}"`,
    `scope="${DEFAULT_SCOPES.join(' ')}"`,
  ];
  if (credentialSent) params.push('error="invalid_token"');
  return `Bearer ${params.join(', ')}`;
}

function parseToolsets(header: string | null): Toolset[] | undefined {
  if (header === null || header.trim() === '') return undefined;
  const names = header
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('all')) return [...ALL_TOOLSETS];
  const unknown = names.filter((n) => !ALL_TOOLSETS.includes(n as Toolset));
  if (unknown.length)
    throw badRequest(
      `X-MCP-Toolsets names unknown toolset(s): ${unknown.join(', ')}. Known: ${ALL_TOOLSETS.join(', ')}, all.`,
      'X-MCP-Toolsets',
    );
  return names as Toolset[];
}

function parseFlag(header: string | null, name: string): boolean {
  if (header === null) return false;
  const v = header.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0' || v === '') return false;
  throw badRequest(`${name} must be true or false.`, name);
}
