import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionResult } from 'graphql';
import type { McpConfirm } from '../schema/context.ts';
import { CONFIRMATION_ARG, type Tool } from './catalog.ts';
import type { ModernRound } from './handlers.ts';
import { toolError } from './tool-results.ts';

/**
 * A tool call's confirmation token (the `confirmation` argument of a tool that spends or
 * destroys), taken out of its arguments: the operation never sees it; the executor's confirm stage
 * checks it (src/http/executor/stages/confirm.ts). On any other tool it is an unknown argument.
 */
export function takeConfirmation(
  tool: Tool,
  args: Record<string, unknown>,
): { variables: Record<string, unknown>; token?: string } | CallToolResult {
  if (!tool.operation.meta.consequence || !(CONFIRMATION_ARG in args)) return { variables: args };
  const { [CONFIRMATION_ARG]: token, ...variables } = args;
  if (token === undefined || token === null) return { variables };
  if (typeof token !== 'string') return toolError(400, `${CONFIRMATION_ARG} must be a string.`, CONFIRMATION_ARG);
  return { variables, token };
}

/**
 * The quote of a call that did not run for want of a person's yes (428 CONFIRMATION_REQUIRED): the
 * error object with the question (`quote`) and the token to send back (`confirmation`). A tool
 * error (isError: true): nothing was done, and a host does not check it against the tool's
 * output schema.
 */
export function quoteResult(result: ExecutionResult): CallToolResult | undefined {
  const asked = result.errors?.find((e) => typeof e.extensions?.confirmation === 'string');
  if (!asked) return undefined;
  const { confirmation, quote } = asked.extensions as { confirmation: string; quote: string };
  // 428 is MCP's alone (REST and GraphQL never ask), so its reason phrase is not in the API's list.
  return toolError(428, asked.message, undefined, 'CONFIRMATION_REQUIRED', {
    error: 'Precondition Required',
    quote,
    confirmation,
  });
}

/**
 * How a 2026-07-28 call is confirmed (modern.ts asked with `input_required`, the confirmation token
 * as its request state): the retry carries the person's answer and the state. `accept`: the state
 * is the token, checked and spent by the confirm stage as any token (this service's signature,
 * unexpired, this credential, tool, arguments and price, unused); `decline` or `cancel`: the
 * confirm stage refuses with the quote, nothing done. A `confirmation` argument wins; a round
 * without both an answer and a state is a first call (it gets a question).
 */
export function confirmationOf(token: string | undefined, round: ModernRound | undefined): McpConfirm {
  if (token !== undefined) return { token };
  if (round?.requestState === undefined || round.answer === undefined) return {};
  const { answer, requestState } = round;
  return answer === 'accept' ? { token: requestState } : { ask: async () => answer };
}
