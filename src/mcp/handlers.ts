import type {
  CallToolRequest,
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceRequest,
  ReadResourceResult,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The requests this server answers, each written once and served to both protocol revisions:
 * 2025-11-25 through the 1.x SDK's `Server` (server.ts), 2026-07-28 through the 2.x SDK's
 * (modern.ts). A handler takes the request's params and what it needs to know of its request.
 */
interface McpMethods {
  'tools/list': [unknown, ListToolsResult];
  'tools/call': [CallToolRequest['params'], CallToolResult];
  'resources/list': [unknown, ListResourcesResult];
  'resources/templates/list': [unknown, ListResourceTemplatesResult];
  'resources/read': [ReadResourceRequest['params'], ReadResourceResult];
  'completion/complete': [CompleteRequest['params'], CompleteResult];
  'prompts/list': [unknown, ListPromptsResult];
  'prompts/get': [GetPromptRequest['params'], GetPromptResult];
}
export type McpMethod = keyof McpMethods;

/**
 * A 2026-07-28 request's multi-round-trip input (MRTR): whether its client declared elicitation in
 * the request's `_meta`, and, on a retry, the person's answer to the question and the request
 * state the server handed out with it (a confirmation token, src/modules/auth/confirmations.ts).
 */
export interface ModernRound {
  canAsk: boolean;
  /** Whether the client declared the Tasks extension (tasks-extension.ts): a long call may answer a task. */
  tasks: boolean;
  answer?: 'accept' | 'decline' | 'cancel';
  requestState?: string;
}

/** What a handler learns of its request besides its params. */
export interface HandlerContext {
  requestId: RequestId;
  /** Present on a 2026-07-28 request only. */
  modern?: ModernRound;
}

type McpHandler<M extends McpMethod> = (params: McpMethods[M][0], context: HandlerContext) => Promise<McpMethods[M][1]>;

/** Adds a handler to the server being built (whichever SDK's). */
export type Register = <M extends McpMethod>(method: M, handler: McpHandler<M>) => void;
