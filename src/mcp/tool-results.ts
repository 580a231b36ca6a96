import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody } from '../errors.ts';

export function toolError(status: number, message: string, param?: string): CallToolResult {
  const body = errorBody(status, message, param);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> };
}

/** A tool's JSON result: structured content (objects as they are, anything else under `result`) and the same as text. */
export function toolResult(value: unknown): CallToolResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
}
