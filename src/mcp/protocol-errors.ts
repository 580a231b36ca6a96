/**
 * A JSON-RPC error a request handler throws: the SDK sends its `code`, `message` and `data` as
 * they are. Not the SDK's McpError: its message already starts with "MCP error <code>: ", which
 * the SDK would send on the wire and the client's McpError would prefix again.
 */
export function protocolError(code: number, message: string, data?: unknown): Error & { code: number } {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}
