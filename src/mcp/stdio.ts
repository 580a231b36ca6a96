import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { baseUrlFromEnv, cannotReach } from '../../bin/reach.js';
import { API_REVISION } from '../version.ts';

/**
 * `svc mcp`: the same tool catalogue over stdio. It is a bridge to the HTTP API's /mcp with
 * the key from SERVICE_API_KEY, so scopes, toolsets, limits and idempotency are the server's.
 * stdout carries only JSON-RPC; everything else goes to stderr.
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
  const server = new Server(upstream.getServerVersion() ?? { name: 'cloud-account-api', version: API_REVISION }, {
    capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
    ...(instructions ? { instructions } : {}),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => relayed(upstream.listTools(request.params)));
  server.setRequestHandler(CallToolRequestSchema, (request) => relayed(upstream.callTool(request.params)));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => relayed(upstream.listResources(request.params)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) =>
    relayed(upstream.listResourceTemplates(request.params)),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request) => relayed(upstream.readResource(request.params)));
  server.setRequestHandler(CompleteRequestSchema, (request) => relayed(upstream.complete(request.params)));
  server.setRequestHandler(ListPromptsRequestSchema, (request) => relayed(upstream.listPrompts(request.params)));
  server.setRequestHandler(GetPromptRequestSchema, (request) => relayed(upstream.getPrompt(request.params)));
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
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
