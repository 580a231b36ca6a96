import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolRequest, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type McpRequestContext, Server, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { baseUrlFromEnv, cannotReach } from '../../bin/reach.js';
import { API_REVISION } from '../version.ts';
import type { McpMethod } from './handlers.ts';
import { MCP_CAPABILITIES } from './server.ts';
import { forwardModern, forwardTasksExtension } from './stdio-modern.ts';

/**
 * `svc mcp`: the same tool catalogue over stdio. It is a bridge to the HTTP API's /mcp with
 * the key from SERVICE_API_KEY, so scopes, toolsets, limits and idempotency are the server's.
 * stdout carries only JSON-RPC; everything else goes to stderr. It speaks both protocol
 * revisions to its stdio client (the 2.x SDK's `serveStdio`: a connection that opens with
 * `initialize` is 2025-11-25's, one that opens with `server/discover` 2026-07-28's). Upstream it
 * is a 2025-11-25 client without elicitation, except for what only the 2026-07-28 revision carries:
 * a 2026-07-28 client's tool calls and task requests pass to /mcp as that revision's requests
 * (stdio-modern.ts), so such a client is asked in-band and gets tasks as over HTTP. A 2025-11-25
 * client gets the quote and token (428) and no tasks: the 2.x SDK checks a 2025 tools/call answer
 * as a CallToolResult, which a task handle is not.
 */
export async function runStdioMcp(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const key = env.SERVICE_API_KEY;
  if (!key) {
    process.stderr.write(
      'svc mcp: SERVICE_API_KEY is not set. Set it to an API key (svc_...) or OAuth access token; SERVICE_BASE_URL names the API (default http://127.0.0.1:8080).\n',
    );
    process.exit(2);
  }
  const base = (baseUrlFromEnv(env) || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (env.SERVICE_MCP_TOOLSETS) headers['X-MCP-Toolsets'] = env.SERVICE_MCP_TOOLSETS;
  if (env.SERVICE_MCP_READONLY) headers['X-MCP-Readonly'] = env.SERVICE_MCP_READONLY;
  if (env.SERVICE_MCP_OUTPUT_SCHEMAS) headers['X-MCP-Output-Schemas'] = env.SERVICE_MCP_OUTPUT_SCHEMAS;

  const upstream = new Client({ name: 'svc-mcp-stdio', version: API_REVISION });
  try {
    await upstream.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  } catch (err) {
    const unreachable = cannotReach(`${base}/mcp`, err);
    process.stderr.write(
      unreachable ? `svc: ${unreachable}\n` : `svc mcp: ${base}/mcp refused this key: ${(err as Error).message}\n`,
    );
    process.exit(1);
  }

  // The API's server info (title, icon, website) and instructions (the conventions its tools
  // share) pass on as they are.
  const instructions = upstream.getInstructions();
  const info = upstream.getServerVersion() ?? { name: 'cloud-account-api', version: API_REVISION };
  const forward = forwardModern(`${base}/mcp`, headers);
  const relays: Record<McpMethod, (params: never, ctx: ServerContext) => Promise<unknown>> = {
    // No tool says it runs as a task: a 2025-11-25 client's handle cannot pass (see above), and
    // a 2026-07-28 server decides per call.
    'tools/list': async (params) => {
      const listed = await upstream.listTools(params);
      return { ...listed, tools: listed.tools.map(({ execution: _, ...tool }) => tool) };
    },
    'tools/call': ({ task: _, ...params }: CallToolRequest['params'], ctx) =>
      ctx.mcpReq.envelope ? forward('tools/call', params, ctx) : upstream.callTool(params),
    'resources/list': (params) => upstream.listResources(params),
    'resources/templates/list': (params) => upstream.listResourceTemplates(params),
    'resources/read': (params) => upstream.readResource(params),
    'completion/complete': (params) => upstream.complete(params),
    'prompts/list': (params) => upstream.listPrompts(params),
    'prompts/get': (params) => upstream.getPrompt(params),
  };
  const bridge = ({ era }: McpRequestContext) => {
    const server = new Server(info, { capabilities: MCP_CAPABILITIES, ...(instructions ? { instructions } : {}) });
    for (const [method, relay] of Object.entries(relays))
      server.setRequestHandler(
        method as 'tools/list',
        ((request: { params?: unknown }, ctx: ServerContext) => relayed(relay(request.params as never, ctx))) as never,
      );
    if (era === 'modern') forwardTasksExtension(server, forward);
    return server;
  };
  const served = serveStdio(bridge, {
    onerror: (err) => process.stderr.write(`svc mcp: ${err.message}\n`),
  });
  process.stdin.on('close', () => void Promise.all([served.close(), upstream.close()]));
  process.stderr.write(`svc mcp: serving ${base}/mcp over stdio\n`);
}

/**
 * The API's JSON-RPC error passed on as the API sent it: the client's McpError carries it with
 * "MCP error <code>: " in front, which the stdio client would add a second time.
 */
function relayed<T>(call: Promise<T>): Promise<T> {
  return call.catch((err: unknown) => {
    if (!(err instanceof McpError)) throw err;
    throw Object.assign(new Error(err.message.replace(`MCP error ${err.code}: `, '')), {
      code: err.code,
      data: err.data,
    });
  });
}
