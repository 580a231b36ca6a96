import { PROTOCOL_VERSION_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TASKS_EXTENSION } from './tasks-extension.ts';

/**
 * What `svc mcp` (stdio.ts) passes to the API's /mcp as a 2026-07-28 request, exactly as its
 * stdio client sent it — its `_meta` envelope (revision, client info and capabilities) and the
 * retry fields of a multi-round-trip request (`inputResponses`, `requestState`) — and whose
 * answer it passes back as the API gave it: a tool call, so that the API asks the person
 * in-band (`input_required`) of a client that declared elicitation and answers a task to one
 * that declared the Tasks extension, and the Tasks extension's requests. Nothing of either is
 * decided here: the API's own 2026-07-28 serving (modern.ts, tasks-extension.ts) does it.
 */
export type ForwardModern = (method: string, params: Record<string, unknown>, ctx: ServerContext) => Promise<unknown>;

export function forwardModern(url: string, headers: Readonly<Record<string, string>>): ForwardModern {
  let id = 0;
  return async (method, params, { mcpReq }) => {
    const envelope = (mcpReq.envelope ?? {}) as Record<string, unknown>;
    const state = mcpReq.requestState();
    const message = {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: {
        ...params,
        _meta: { ...(params._meta as object | undefined), ...envelope },
        ...(mcpReq.inputResponses ? { inputResponses: mcpReq.inputResponses } : {}),
        ...(typeof state === 'string' ? { requestState: state } : {}),
      },
    };
    // The routing headers the revision requires: Mcp-Name is the tool's name, or the task's id.
    const name = method === 'tools/call' ? params.name : params.taskId;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': String(envelope[PROTOCOL_VERSION_META_KEY]),
        'Mcp-Method': method,
        ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
      },
      body: JSON.stringify(message),
    });
    const answer = responseOf(await res.text(), res.headers.get('content-type') ?? '');
    if (!answer) throw new Error(`${url} answered ${method} with HTTP ${res.status} and no JSON-RPC response.`);
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    // The server's identity in `_meta` is stamped again by the SDK that serves stdio (the same).
    const { _meta: _, ...result } = answer.result as Record<string, unknown>;
    return result;
  };
}

/** Serves the Tasks extension's requests by passing them on (the API keeps the tasks). */
export function forwardTasksExtension(server: Server, forward: ForwardModern): void {
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
    server.setRequestHandler(method, { params: TASK_REQUEST }, (params, ctx) => forward(method, params, ctx) as never);
  server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
}

const TASK_REQUEST = z.looseObject({ taskId: z.string() });

interface JsonRpcResponse {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The JSON-RPC response in an answer sent as JSON or as an event stream (its last response). */
function responseOf(text: string, contentType: string): JsonRpcResponse | undefined {
  const messages = contentType.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => parsed(line.slice(5)))
    : [parsed(text)];
  return messages.findLast(
    (m): m is JsonRpcResponse => typeof m === 'object' && m !== null && ('result' in m || 'error' in m),
  );
}

function parsed(text: string): JsonRpcResponse | undefined {
  try {
    return JSON.parse(text) as JsonRpcResponse;
  } catch {
    return undefined;
  }
}
