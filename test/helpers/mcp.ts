import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TextContent } from '@modelcontextprotocol/sdk/types.js';
import type { Json } from './app.ts';

/**
 * A tools/call result as this server answers it (src/mcp/tool-results.ts): the JSON answer as
 * text, and as `structuredContent` (absent only where the SDK itself refused the call).
 */
export interface ToolResult {
  isError?: boolean;
  content: TextContent[];
  structuredContent?: Json;
  _meta?: Record<string, unknown>;
}

/** `client.callTool`, typed as this server answers: the SDK's type also allows the legacy `toolResult` form. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** An MCP SDK client connected to /mcp over Streamable HTTP with a Bearer credential. */
export async function mcpClient(
  baseUrl: string,
  key: string,
  headers: Record<string, string> = {},
  counter?: { requests: number },
): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const countingFetch: typeof fetch = (input, init) => {
    if (counter) counter.requests++;
    return fetch(input, init);
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      fetch: countingFetch,
      requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
    }),
  );
  return client;
}

/**
 * A call of a tool that spends or destroys, confirmed as a person would (src/http/executor/stages/confirm.ts):
 * the first call answers the quote and a token; the same call with the token runs.
 */
export async function confirmedCall(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const first = await callTool(client, name, args);
  if (first.structuredContent?.code !== 'CONFIRMATION_REQUIRED') return first;
  return callTool(client, name, { ...args, confirmation: first.structuredContent.confirmation });
}
