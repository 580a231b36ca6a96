import { getArgumentValues, getVariableValues, Kind } from 'graphql';
import { ApiError } from '../../../errors.ts';
import {
  CONFIRMATION_REFUSALS,
  CONFIRMATION_TTL_MS,
  issueConfirmation,
  redeemConfirmation,
} from '../../../modules/auth/confirmations.ts';
import { stableJson } from '../../../modules/auth/idempotency.ts';
import { holdsNode } from '../../../schema/node-kinds.ts';
import type { OperationMeta } from '../../../schema/operation.ts';
import { type OperationCall, refused } from '../call.ts';

/** The MCP argument that carries a confirmation token (src/mcp/catalog.ts lists it on the tools that ask). */
const TOKEN_ARG = 'confirmation';

/**
 * An agent never spends or destroys without a person's yes (docs/REFERENCE.md: MCP,
 * Confirmation). For an MCP tool whose operation declares a consequence (src/schema/operation.ts),
 * after authorization, before the Idempotency-Key is claimed (a person may take minutes to answer):
 * - the operation's quote (its service's price, or what is lost) is computed; none: it runs;
 * - with a confirmation token, the token must be this app's, unexpired, issued to this credential
 *   for this tool, these arguments and this price, and unused: it is spent, then the call runs;
 * - a client that can ask (elicitation) asks the person with the quote: accept runs (if the price
 *   is still the same), decline or cancel answers that nothing was done;
 * - otherwise the call does not run: the answer is the quote and a single-use token (428).
 * Code mode cannot ask: a document selecting such an operation is refused before anything runs.
 * REST and GraphQL (programs, not agents) are not MCP calls and pass.
 */
export async function confirm(call: OperationCall): Promise<void> {
  const { compiled, context } = call;
  if (!context.mcp || !context.principal) return;
  const root = compiled.roots.find((r) => r.meta.consequence);
  if (!root) return;
  const meta = root.meta;
  if (!compiled.projection) return refused(call, codeModeRefusal(root.name, meta));
  const args = fieldArguments(call, root.name);
  // Input GraphQL refuses: the execution answers it, and nothing runs.
  if (!args) return;
  const consequence = meta.consequence!;
  // Nothing of the account's to destroy (another account's resource, a missing one): no question,
  // the operation answers its 404 as it would to anyone. A spending quote reads what it prices.
  if (consequence.kind === 'destroys' && (await holdsNode(context, args.id)) === false) return;
  const quote = await consequence.quote(context, args);
  if (!quote) return;
  const { accountId, credentialId } = context.principal;
  const bound = { accountId, credentialId, tool: meta.tool, variables: call.variables, terms: quote.terms };
  const { token, ask } = context.mcp.confirm ?? {};
  if (token !== undefined) {
    const why = await redeemConfirmation(context.app, token, bound);
    if (why)
      refused(
        call,
        new ApiError(
          403,
          `${CONFIRMATION_REFUSALS[why]} Nothing was done; call ${meta.tool} without it for a new quote.`,
          {
            code: 'CONFIRMATION_INVALID',
            field: TOKEN_ARG,
          },
        ),
      );
    return;
  }
  if (ask) {
    const answer = await ask(quote.message);
    if (answer === 'accept') {
      const now = await consequence.quote(context, args);
      if (now && stableJson(now.terms) !== stableJson(quote.terms))
        refused(
          call,
          new ApiError(409, `The price changed while the person was asked; nothing was done. Now: ${now.message}`, {
            code: 'CONFIRMATION_STALE',
          }),
        );
      return;
    }
    if (answer !== 'unavailable')
      return refused(
        call,
        new ApiError(
          403,
          `The person did not confirm (${answer}); nothing was done. They were asked: ${quote.message}`,
          {
            code: 'CONFIRMATION_DECLINED',
          },
        ),
      );
  }
  const issued = issueConfirmation(context.app, bound);
  const question = new ApiError(
    428,
    `${quote.message} Nothing was done yet: ask the person. If they agree, call ${meta.tool} again with the same arguments and "${TOKEN_ARG}" set to this confirmation (valid ${CONFIRMATION_TTL_MS / 60_000} minutes, once).`,
    { code: 'CONFIRMATION_REQUIRED' },
  );
  Object.assign(question.extensions, { confirmation: issued, quote: quote.message });
  refused(call, question);
}

/** The field's arguments as its resolver gets them (GraphQL names, coerced), or undefined when the input is refused. */
function fieldArguments(call: OperationCall, name: string): Record<string, unknown> | undefined {
  const { schema, operation } = call.compiled;
  const field = schema.getMutationType()?.getFields()[name];
  const node = operation?.selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === name);
  if (!field || !node || node.kind !== Kind.FIELD) return undefined;
  const variables = getVariableValues(schema, operation?.variableDefinitions ?? [], call.variables);
  if (variables.errors) return undefined;
  try {
    return getArgumentValues(field, node, variables.coerced);
  } catch {
    return undefined;
  }
}

/** Code mode runs documents without a person in the loop: the tool asks, so the agent calls it. */
function codeModeRefusal(field: string, meta: OperationMeta): ApiError {
  const what = meta.consequence?.kind === 'spends' ? "spends the account's money" : 'destroys data';
  return new ApiError(
    403,
    `${field} ${what}, which a person confirms first, and graphql_execute cannot ask: call the tool ${meta.tool} instead (its toolset: ${meta.toolset ?? meta.area}), which asks before it runs. Nothing was done.`,
    { code: 'CONFIRMATION_REQUIRED' },
  );
}
