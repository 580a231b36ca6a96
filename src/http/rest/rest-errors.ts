import type { GraphQLError } from 'graphql';
import { ApiError, apiErrorOf, codeOf, isClientGraphQLError, paramOf, unexpectedError } from '../../errors.ts';
import { requestScope } from '../request/request-scope.ts';

/**
 * The one refusal of an operation's GraphQL errors, the most severe status winning: what a
 * REST call (pipeline/execute.ts) and an MCP tool answer, so both say the same thing (refused
 * variables are already in the API's words: executor/stages/restate.ts). It classifies; the
 * respond stage (and an MCP tool result) gives it its shape. Errors the executor did not mask
 * (a resolver's crash, the database away) are classified and logged here.
 */
export function refusalOf(errors: readonly unknown[]): ApiError {
  let status = 0;
  let message = '';
  let param: string | undefined;
  let code: string | undefined;
  const headers: Record<string, string> = {};
  for (const error of errors) {
    const api = apiErrorOf(error) ?? (isClientGraphQLError(error) ? undefined : unexpectedOrUndefined(error));
    const http = (api ?? (error as GraphQLError))?.extensions?.http as
      | { status?: number; headers?: Record<string, string> }
      | undefined;
    const s = api?.status ?? http?.status ?? (isClientGraphQLError(error) ? 400 : 500);
    // Masked resolver errors were logged by the masker; anything else unexpected is logged here.
    // An expected 503 (the database is away) is counted by its outage instead (db/outage.ts).
    if (s === 503 && !apiErrorOf(error)) requestScope.getStore()?.outages?.database.failed(error);
    else if (s >= 500 && !apiErrorOf(error)) requestScope.getStore()?.log.error({ err: error }, 'unexpected error');
    if (s > status) {
      status = s;
      message =
        s >= 500 ? (api?.message ?? 'Internal server error.') : error instanceof Error ? error.message : String(error);
      param = s >= 500 || !api ? undefined : paramOf(api);
      code = api ? codeOf(api) : undefined;
    }
    Object.assign(headers, http?.headers ?? {});
  }
  if (!status) status = 500;
  return new ApiError(status, message, {
    field: param,
    code,
    headers: Object.keys(headers).length ? headers : undefined,
  });
}

/**
 * Errors outside the API's own (a resolver's throw the executor located, not masked) classified
 * by their cause like masked ones: the database away (503), a lost Idempotency-Key claim (409).
 */
function unexpectedOrUndefined(error: unknown): ApiError | undefined {
  const classified = unexpectedError((error as GraphQLError)?.originalError ?? error);
  return classified.status === 500 ? undefined : classified;
}
