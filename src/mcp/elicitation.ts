import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitResultSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { McpConfirm } from '../schema/context.ts';
import type { Tool } from './catalog.ts';

/**
 * Elicitation (MCP 2025-11-25) on a stateless server: each POST gets a fresh server, so what a
 * client declared at `initialize` and the answer to a question are carried across requests here,
 * per credential, in this instance's memory.
 * - A client that declared `elicitation` (form) at initialize is remembered for its credential.
 * - A tools/call of a tool that spends or destroys from such a client is answered as an event
 *   stream, on which the server sends `elicitation/create` with the quote (the SDK's public
 *   `request`: `elicitInput` refuses on a server that never saw the client's initialize).
 * - The client answers in a POST of its own; it is handed to the waiting server's transport. One
 *   question per credential at a time; a second, an answer that never comes back
 *   (ELICITATION_TIMEOUT_MS) or one that reaches another instance leaves the call to the token flow.
 */
const ELICITATION_TIMEOUT_MS = 3 * 60 * 1000;
const REMEMBERED_MS = 24 * 60 * 60 * 1000;
const REMEMBERED_MAX = 10_000;

/** Credentials whose client declared elicitation at its last initialize, until when (wall clock). */
const eliciting = new Map<string, number>();
/** The transport of the call waiting for its person's answer, by credential. */
const waiting = new Map<string, Transport>();

type Message = { method?: unknown; params?: { capabilities?: { elicitation?: { form?: object; url?: object } } } };

/** Notes what the client of an `initialize` declared: elicitation in form mode (`{}` is form, as 2025-06-18 meant). */
export function rememberClient(credentialId: string, body: unknown): void {
  const message = body as Message | null;
  if (message?.method !== 'initialize') return;
  const elicitation = message.params?.capabilities?.elicitation;
  if (elicitation && typeof elicitation === 'object' && (elicitation.form || !elicitation.url)) {
    if (eliciting.size >= REMEMBERED_MAX) eliciting.clear();
    eliciting.set(credentialId, Date.now() + REMEMBERED_MS);
  } else eliciting.delete(credentialId);
}

/** Whether this POST is a call of a tool that asks, from a client that can be asked: it is answered as a stream. */
export function asksPerson(credentialId: string, body: unknown, offered: (name: string) => Tool | undefined): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string') return false;
  if (!offered(message.params.name)?.operation.meta.consequence) return false;
  const until = eliciting.get(credentialId);
  return until !== undefined && until > Date.now();
}

/** A client's answer (a JSON-RPC response) to the question its credential's call is waiting on: handed over. */
export function deliverAnswer(credentialId: string, body: unknown): boolean {
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  if (!message || message.method !== undefined || message.id === undefined) return false;
  if (message.result === undefined && message.error === undefined) return false;
  const transport = waiting.get(credentialId);
  if (!transport) return false;
  transport.onmessage?.(message as Parameters<NonNullable<Transport['onmessage']>>[0]);
  return true;
}

/**
 * How the confirm stage asks the person (src/http/executor/stages/confirm.ts): `elicitation/create`
 * with the quote, on the tools/call's stream. `beforeWaiting` gives back the request's slots: a
 * person may take minutes.
 */
export function askPerson(
  server: Server,
  transport: Transport,
  credentialId: string,
  requestId: RequestId,
  beforeWaiting: () => void,
): NonNullable<McpConfirm['ask']> {
  return async (message) => {
    if (waiting.has(credentialId)) return 'unavailable';
    waiting.set(credentialId, transport);
    beforeWaiting();
    try {
      const answer = await server.request(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
        },
        ElicitResultSchema,
        { relatedRequestId: requestId, timeout: ELICITATION_TIMEOUT_MS },
      );
      return answer.action;
    } catch {
      return 'unavailable';
    } finally {
      if (waiting.get(credentialId) === transport) waiting.delete(credentialId);
    }
  };
}
