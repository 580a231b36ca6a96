import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js';
import { lacksScope } from '../errors.ts';
import { API_REVISION } from '../version.ts';
import { CODE_MODE_TOOLSET, listedAnnotations, selectTools, type Tool, type ToolSelection } from './catalog.ts';
import { codeModeTools } from './code-mode.ts';
import { MCP_INSTRUCTIONS } from './conventions.ts';
import { toolError } from './tool-results.ts';

export { toolError, toolResult } from './tool-results.ts';

export type ToolRunner = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;
export type CodeModeToolRunner = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/**
 * What tools/list answers for a selection: the operation tools it allows, then code mode's when
 * asked for. Output schemas only when asked for (X-MCP-Output-Schemas): they are more than
 * half of the listing an agent pays for before its first call, and results are the same without.
 */
export function listedTools(catalog: readonly Tool[], selection: ToolSelection): ListedTool[] {
  const operations = selectTools(catalog, selection).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: listedAnnotations(t.annotations),
  }));
  const tools = [
    ...operations,
    ...(selection.toolsets?.includes(CODE_MODE_TOOLSET) ? codeModeTools(selection.readOnly ?? false) : []),
  ];
  return selection.outputSchemas ? tools : tools.map(({ outputSchema: _, ...tool }) => tool);
}

/**
 * An MCP server for one request's credential: tools/list shows what the credential may use;
 * tools/call runs a listed tool. A tool outside the chosen toolsets is unknown; one the
 * credential's scopes or read-only mode forbid is refused with the REST error object. When
 * operation tools are listed, initialize carries the conventions they share (conventions.ts).
 */
export function createMcpServer(
  catalog: readonly Tool[],
  selection: ToolSelection,
  run: ToolRunner,
  runCodeMode: CodeModeToolRunner,
): Server {
  const instructions = selectTools(catalog, selection).length ? MCP_INSTRUCTIONS : undefined;
  const server = new Server(
    { name: 'cloud-account-api', version: API_REVISION },
    { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) },
  );
  const visible = listedTools(catalog, selection);
  const inToolsets = selectTools(catalog, {
    ...selection,
    scopes: new Set(catalog.map((t) => t.scope)),
    readOnly: false,
  });
  const codeMode = new Set(
    selection.toolsets?.includes(CODE_MODE_TOOLSET) ? codeModeTools(false).map((t) => t.name) : [],
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: visible }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (codeMode.has(request.params.name)) return runCodeMode(request.params.name, args);
    const tool = inToolsets.find((t) => t.name === request.params.name);
    if (!tool) throw unknownTool(request.params.name);
    if (!selection.scopes.has(tool.scope)) {
      const refusal = lacksScope(tool.scope);
      return toolError(refusal.status, refusal.message);
    }
    if (selection.readOnly && !tool.annotations.readOnlyHint)
      return toolError(403, `${tool.name} changes state; this session is read-only (X-MCP-Readonly).`);
    return run(tool, args);
  });
  return server;
}

/**
 * JSON-RPC -32602 for a tool not offered. Not an McpError: its message already starts with
 * "MCP error -32602:", which the SDK sends on the wire and the client's McpError prefixes again.
 */
function unknownTool(name: string): Error & { code: number } {
  return Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
}
