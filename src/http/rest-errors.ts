import type { GraphQLError } from 'graphql';
import {
  apiErrorOf,
  codeOf,
  errorBody,
  isClientGraphQLError,
  paramOf,
  unexpectedError,
  type ApiError,
  type ErrorBody,
} from '../errors.ts';
import { requestScope } from './request-scope.ts';

/**
 * The spec's error object for the errors of one operation. The most severe status wins.
 * Shared by REST and MCP, so both say the same thing (refused variables are already in the
 * API's words: plugins/input-errors.ts).
 */
export function errorFromGraphQLErrors(errors: readonly unknown[]): {
  body: ErrorBody;
  headers: Record<string, string>;
} {
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
  return { body: errorBody(status, message, param, code), headers };
}

/** sofa's error handler: the error object as a REST response. */
export function restErrorResponse(errors: readonly unknown[]): Response {
  const { body, headers } = errorFromGraphQLErrors(errors);
  return new Response(JSON.stringify(body), {
    status: body.statusCode,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
  });
}

/** Errors outside the API's own (thrown before or outside the masker) classified like masked ones. */
function unexpectedOrUndefined(error: unknown): ApiError | undefined {
  const classified = unexpectedError(error);
  return classified.status === 503 ? classified : undefined;
}
