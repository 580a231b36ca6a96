import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Implementation,
  type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js';
import { lacksScope } from '../errors.ts';
import { CODE_MODE_TOOLSET, listedAnnotations, selectTools, type Tool, type ToolSelection } from './catalog.ts';
import { codeModeTools } from './code-mode.ts';
import { MCP_INSTRUCTIONS } from './conventions.ts';
import type { HandlerContext, McpMethod, Register } from './handlers.ts';
import { servePrompts } from './prompts.ts';
import { perCatalog, scopesKey } from './per-catalog.ts';
import { protocolError } from './protocol-errors.ts';
import { serveResources } from './resources.ts';
import type { McpTasks } from './tasks.ts';
import { createTaskResult } from './tasks-extension.ts';
import { toolError } from './tool-results.ts';

export { toolError, toolResult } from './tool-results.ts';

/**
 * Runs an operation tool; `context` is the tools/call's (2025-11-25: a question to the person travels
 * on its stream; 2026-07-28: the person's answer comes with the retried call).
 */
export type ToolRunner = (
  tool: Tool,
  args: Record<string, unknown>,
  context: HandlerContext,
) => Promise<CallToolResult>;
export type CodeModeToolRunner = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/**
 * What tools/list answers for a selection: the operation tools it allows, then code mode's when
 * asked for. Output schemas only when asked for (X-MCP-Output-Schemas): they are more than
 * half of the listing an agent pays for before its first call, and results are the same without.
 * The answer is shared, read-only, for every request with the same selection.
 */
export function listedTools(
  catalog: readonly Tool[],
  selection: ToolSelection,
  revision: '2025-11-25' | '2026-07-28' = '2025-11-25',
): readonly ListedTool[] {
  const listing = listingOf(catalog, selection);
  return revision === '2025-11-25' ? listing.taskTools : listing.tools;
}

interface Listing {
  tools: readonly ListedTool[];
  /** The same for a 2025-11-25 client: a tool the credential can follow says it runs as a task (tasks.ts). */
  taskTools: readonly ListedTool[];
  /** How many operation tools the selection allows (code mode's not counted). */
  operations: number;
}

/** What tools/list answers for a selection, made once per selection (per-catalog.ts). */
const listingOf = perCatalog(
  (selection: ToolSelection) =>
    [
      scopesKey(selection.scopes),
      selection.toolsets?.join(',') ?? '',
      selection.readOnly ? 'r' : '',
      selection.outputSchemas ? 'o' : '',
    ].join('|'),
  (catalog, selection) => listingFor(catalog, selection),
);

function listingFor(catalog: readonly Tool[], selection: ToolSelection): Listing {
  const operations = selectTools(catalog, selection).map((t) => {
    const annotations = listedAnnotations(t.annotations);
    return {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      // Every hint at the spec's default (a tool that spends or destroys and is not idempotent): none to list.
      ...(Object.keys(annotations).length ? { annotations } : {}),
    };
  });
  const tools = [
    ...operations,
    ...(selection.toolsets?.includes(CODE_MODE_TOOLSET) ? codeModeTools(selection.readOnly ?? false) : []),
  ];
  const listed = selection.outputSchemas ? tools : tools.map(({ outputSchema: _, ...tool }) => tool);
  const followed = new Set(
    selectTools(catalog, selection)
      .filter((t) => canFollow(t, selection.scopes))
      .map((t) => t.name),
  );
  return {
    tools: listed,
    taskTools: listed.map((t) =>
      followed.has(t.name) ? { ...t, execution: { taskSupport: 'optional' as const } } : t,
    ),
    operations: operations.length,
  };
}

/** Whether a credential with `scopes` may follow the tool's work as a task: it settles, and its read is allowed. */
function canFollow(tool: Tool, scopes: ReadonlySet<string>): boolean {
  return Boolean(tool.settles && scopes.has(tool.settles.read.scope));
}

/** The tools of the chosen toolsets by name, whatever the scopes (a tool outside them is refused, not unknown). */
const inToolsets = perCatalog(
  (toolsets: ToolSelection['toolsets']) => toolsets?.join(',') ?? '',
  (catalog, toolsets): ReadonlyMap<string, Tool> => {
    const all = { scopes: new Set(catalog.map((t) => t.scope)), toolsets, readOnly: false };
    return new Map(selectTools(catalog, all).map((t) => [t.name, t]));
  },
);

/** Only elicitation uses the SDK's schema validator (this server asks for none): one for every server. */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/** What initialize (2025-11-25) and server/discover (2026-07-28) say besides the tools. */
export function mcpInstructions(catalog: readonly Tool[], selection: ToolSelection): string | undefined {
  return listingOf(catalog, selection).operations ? MCP_INSTRUCTIONS : undefined;
}

export const MCP_CAPABILITIES = { tools: {}, resources: {}, prompts: {}, completions: {} };
/** 2025-11-25's Tasks (tasks.ts): tools/call may run as a task; the credential's tasks are listed; none cancels. */
const TASKS_CAPABILITY = { tasks: { list: {}, requests: { tools: { call: {} } } } };

/**
 * The requests of an MCP server for one request's credential, whichever revision it speaks:
 * tools/list shows what the credential may use; tools/call runs a listed tool; its reads are
 * resources too (resources.ts), and the daily workflows prompts (prompts.ts). A tool outside the
 * chosen toolsets is unknown; one the credential's scopes or read-only mode forbid is refused
 * with the REST error object.
 */
export function registerMcpHandlers(
  register: Register,
  catalog: readonly Tool[],
  selection: ToolSelection,
  run: ToolRunner,
  runCodeMode: CodeModeToolRunner,
  tasks?: McpTasks,
): void {
  const listing = listingOf(catalog, selection);
  const offered = inToolsets(catalog, selection.toolsets);
  const codeMode = selection.toolsets?.includes(CODE_MODE_TOOLSET) ? CODE_MODE_TOOL_NAMES : NO_TOOLS;

  serveResources(register, catalog, selection.scopes, run);
  servePrompts(register, catalog, selection.scopes);
  // 2025-11-25 clients learn from the listing which calls may run as tasks; 2026-07-28 tools say nothing.
  register('tools/list', async (_, context) => ({
    tools: (tasks && !context.modern ? listing.taskTools : listing.tools) as ListedTool[],
  }));

  register('tools/call', async (params, context) => {
    const args = params.arguments ?? {};
    if (params.task && tasks && !context.modern) {
      const tool = offered.get(params.name);
      if (!tool || !canFollow(tool, selection.scopes))
        throw protocolError(
          ErrorCode.InvalidParams,
          `${params.name} does not run as a task for this credential: call it without \`task\`.`,
        );
      const result = await call(tool, args, context);
      return { task: await tasks.create(tool, result, params.task.ttl) } as never;
    }
    if (codeMode.has(params.name)) return runCodeMode(params.name, args);
    const tool = offered.get(params.name);
    if (!tool) throw unknownTool(params.name);
    const result = await call(tool, args, context);
    // 2026-07-28, Tasks extension: the server decides; a call whose work goes on answers its task.
    if (tasks && context.modern?.tasks && canFollow(tool, selection.scopes)) {
      const started = await tasks.follow(tool, result);
      if (started) return createTaskResult(started) as never;
    }
    return result;
  });

  async function call(tool: Tool, args: Record<string, unknown>, context: HandlerContext): Promise<CallToolResult> {
    if (!selection.scopes.has(tool.scope)) {
      const refusal = lacksScope(tool.scope);
      return toolError(refusal.status, refusal.message);
    }
    if (selection.readOnly && !tool.annotations.readOnlyHint)
      return toolError(403, `${tool.name} changes state; this session is read-only (X-MCP-Readonly).`);
    return run(tool, args, context);
  }
}

/** The 1.x SDK's request schemas, by method (it registers a handler by its request's schema). */
const SCHEMAS = {
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'completion/complete': CompleteRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
} satisfies Record<McpMethod, unknown>;

/**
 * The MCP server (protocol 2025-11-25, the 1.x SDK) for one request's credential: the handlers
 * above; initialize carries the conventions the tools share when operation tools are listed
 * (conventions.ts), and always `info` (server-info.ts: name, title, icon, website).
 */
export function createMcpServer(
  catalog: readonly Tool[],
  selection: ToolSelection,
  run: ToolRunner,
  runCodeMode: CodeModeToolRunner,
  info: Implementation,
  tasks?: McpTasks,
): Server {
  const instructions = mcpInstructions(catalog, selection);
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(info, {
    capabilities: tasks ? { ...MCP_CAPABILITIES, ...TASKS_CAPABILITY } : MCP_CAPABILITIES,
    ...(tasks ? { taskStore: tasks.store } : {}),
    jsonSchemaValidator: sharedValidator,
    ...(instructions ? { instructions } : {}),
  });
  const register: Register = (method, handler) =>
    server.setRequestHandler(SCHEMAS[method] as typeof ListToolsRequestSchema, (request, extra) =>
      (handler as (params: unknown, context: HandlerContext) => Promise<never>)(request.params, {
        requestId: extra.requestId,
      }),
    );
  registerMcpHandlers(register, catalog, selection, run, runCodeMode, tasks);
  return server;
}

const CODE_MODE_TOOL_NAMES: ReadonlySet<string> = new Set(codeModeTools(false).map((t) => t.name));
const NO_TOOLS: ReadonlySet<string> = new Set();

/** JSON-RPC -32602 for a tool not offered. */
function unknownTool(name: string): Error & { code: number } {
  return protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}
