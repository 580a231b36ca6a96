import { mcpMessageSpendsPoint } from '../../mcp/http.ts';
import type { Exchange } from './exchange.ts';

/**
 * Stage 7, count: an MCP message's request point, decided here and nowhere else, from the parsed
 * JSON-RPC body (src/mcp/http.ts mcpMessageSpendsPoint), before anything runs. A notification,
 * `initialize`, `ping`, a listing and a GET spend none (the admit stage already took the point of the
 * credential's MCP message budget that bounds them); anything else spends one, or is refused (429).
 * Other requests were counted by the admit stage.
 */
export async function count(x: Exchange): Promise<void> {
  if (!x.countMessage) return;
  const counted = await x.countMessage(mcpMessageSpendsPoint(x.method, x.body));
  x.limitHeaders = counted.limitHeaders;
  if (counted.refusal) throw counted.refusal;
}
