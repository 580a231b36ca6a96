import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody } from '../errors.ts';
import { API_REVISION } from '../version.ts';
import { selectTools, type Tool, type ToolSelection } from './catalog.ts';

export type ToolRunner = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;

/**
 * An MCP server for one request's credential: tools/list shows what the credential may use;
 * tools/call runs a listed tool. A tool outside the chosen toolsets is unknown; one the
 * credential's scopes or read-only mode forbid is refused with the REST error object.
 */
export function createMcpServer(catalog: readonly Tool[], selection: ToolSelection, run: ToolRunner): Server {
  const server = new Server({ name: 'cloud-account-api', version: API_REVISION }, { capabilities: { tools: {} } });
  const visible = selectTools(catalog, selection);
  const inToolsets = selectTools(catalog, { ...selection, scopes: new Set(catalog.map((t) => t.scope)), readOnly: false });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: visible.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = inToolsets.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    if (!selection.scopes.has(tool.scope)) return toolError(403, `This credential lacks the scope "${tool.scope}".`);
    if (selection.readOnly && !tool.annotations.readOnlyHint) return toolError(403, `${tool.name} changes state; this session is read-only (X-MCP-Readonly).`);
    return run(tool, request.params.arguments ?? {});
  });
  return server;
}

export function toolError(status: number, message: string): CallToolResult {
  const body = errorBody(status, message);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> };
}

/** A tool's JSON result: structured content (objects as they are, anything else under `result`) and the same as text. */
export function toolResult(value: unknown): CallToolResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
}
