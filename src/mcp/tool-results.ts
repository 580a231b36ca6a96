import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody } from '../errors.ts';

/** A refusal as a tool result: the spec's error object, the same as REST's. */
export function toolError(
  status: number,
  message: string,
  param?: string,
  code?: string,
  /** What the refusal hands back besides (a quote and its confirmation token). */
  more?: Record<string, string>,
): CallToolResult {
  const body = { ...errorBody(status, message, param, code), ...more };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

/**
 * A tool's JSON result: structured content and the same as text. An object is the structured
 * content as it is; anything else (or anything, when `wrap` says so: a tool whose output schema
 * is `{ result }`) travels under `result`.
 */
export function toolResult(
  value: unknown,
  wrap = value === null || typeof value !== 'object' || Array.isArray(value),
): CallToolResult {
  const structured = wrap ? { result: value } : (value as Record<string, unknown>);
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
}
