import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolRequest,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type McpRequestContext, Server, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { baseUrlFromEnv, cannotReach } from '../../bin/reach.js';
import { API_REVISION } from '../version.ts';
import type { McpMethod } from './handlers.ts';
import { MCP_CAPABILITIES } from './server.ts';
import type { FindTask } from './tasks.ts';
import { createTaskResult, declaresTasks, serveTasksExtension } from './tasks-extension.ts';

/**
 * `svc mcp`: the same tool catalogue over stdio. It is a bridge to the HTTP API's /mcp with
 * the key from SERVICE_API_KEY, so scopes, toolsets, limits and idempotency are the server's.
 * stdout carries only JSON-RPC; everything else goes to stderr. It speaks both protocol
 * revisions to its stdio client (the 2.x SDK's `serveStdio`: a connection that opens with
 * `initialize` is 2025-11-25's, one that opens with `server/discover` 2026-07-28's); upstream it
 * is a 2025-11-25 client without elicitation, so a tool that spends or destroys answers the quote
 * and a token (428) in both. A 2026-07-28 client that declares the Tasks extension gets tasks
 * (tasks-extension.ts), made from the API's 2025-11-25 tasks. A 2025-11-25 client gets none: the
 * 2.x SDK checks a 2025 tools/call answer as a CallToolResult, which a task handle is not.
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
  // The API's tasks (2025-11-25) and the tools that may run as one, for this key.
  const upstreamTasks = upstream.getServerCapabilities()?.tasks;
  let followed: Promise<ReadonlySet<string>> | undefined;
  const runsAsTask = async (name: string) => {
    followed ??= upstream
      .listTools()
      .then(({ tools }) => new Set(tools.filter((t) => t.execution?.taskSupport).map((t) => t.name)));
    return (await followed).has(name);
  };
  const findTask: FindTask = async (taskId) => {
    const task = await upstream.experimental.tasks.getTask(taskId).catch((err: unknown) => {
      if (err instanceof McpError && err.code === ErrorCode.InvalidParams) return null;
      throw err;
    });
    if (!task) return null;
    if (task.status !== 'completed') return { task };
    return { task, result: await upstream.experimental.tasks.getTaskResult(taskId, CallToolResultSchema) };
  };

  /**
   * A call, answered when its operation has; a 2026-07-28 client that declared the Tasks extension
   * gets a task instead while the work goes on (the API's task, shown in the extension's shape).
   */
  async function callTool(params: CallToolRequest['params'], ctx: ServerContext): Promise<unknown> {
    const { task: _, ...call } = params;
    if (!upstreamTasks || !declaresTasks(ctx.mcpReq.envelope) || !(await runsAsTask(call.name)))
      return upstream.callTool(call);
    const { task } = await upstream.request(
      { method: 'tools/call', params: { ...call, task: {} } },
      CreateTaskResultSchema,
    );
    // Done (or refused) at once: the answer, as the API's own 2026-07-28 serving gives it.
    if (task.status === 'completed')
      return upstream.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    return createTaskResult(task);
  }

  const relays: Record<McpMethod, (params: never, ctx: ServerContext) => Promise<unknown>> = {
    // No tool says it runs as a task: a 2025-11-25 client's handle cannot pass (see above), and
    // a 2026-07-28 server decides per call.
    'tools/list': async (params) => {
      const listed = await upstream.listTools(params);
      return { ...listed, tools: listed.tools.map(({ execution: _, ...tool }) => tool) };
    },
    'tools/call': (params: CallToolRequest['params'], ctx) => callTool(params, ctx),
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
    if (upstreamTasks && era === 'modern') serveTasksExtension(server, findTask);
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
