import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from './db/errors.ts';
import { ClaimLostError } from './db/recovery.ts';

/** HTTP reason phrases used as the `error` field of the error object. */
export const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The machine code of each status (`code` of the error object), unless a refusal gives a more precise one; `ERROR` for any other. */
export const ERROR_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The error object (DESIGN.md): `statusCode`, `message` and `error` as the spec has them, plus
 * `code` (machine-readable, the same as GraphQL's `extensions.code`) and `param` (the request
 * value at fault, by its path, when one is: `name`, `jobs[1].command`, `Idempotency-Key`).
 */
export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  code: string;
  param?: string;
}

/**
 * The one error type services throw. It is a GraphQLError so GraphQL carries it unchanged
 * (`extensions.code`, `extensions.status`), and `extensions.http` lets yoga and the REST
 * layer answer with the right HTTP status.
 */
export class ApiError extends GraphQLError {
  readonly status: number;
  /** `code`: a more precise machine code than the status's own (QUOTA_EXCEEDED, SUDO_REQUIRED), where a client must tell one refusal from another. */
  constructor(
    status: number,
    message: string,
    opts: { headers?: Record<string, string>; field?: string; code?: string } = {},
  ) {
    super(message, {
      extensions: {
        code: opts.code ?? ERROR_CODES[status] ?? 'ERROR',
        status,
        ...(opts.field ? { field: opts.field } : {}),
        http: { status, ...(opts.headers ? { headers: opts.headers } : {}) },
      },
    });
    this.status = status;
  }
}

export const badRequest = (message: string, field?: string) => new ApiError(400, message, { field });
export const unauthorized = (message = 'A valid API key or access token is required (Authorization: Bearer ...).') =>
  new ApiError(401, message, { headers: { 'WWW-Authenticate': 'Bearer realm="api"' } });
export const forbidden = (message: string) => new ApiError(403, message);
/** The 403 of a credential without the scope an operation, a tool or an edge needs: the one wording every surface uses. */
export const lacksScope = (scope?: string) =>
  forbidden(
    scope ? `This credential lacks the scope "${scope}".` : 'This credential lacks the scope this operation requires.',
  );
export const notFound = (what: string) => new ApiError(404, `${what} not found.`);
export const conflict = (message: string) => new ApiError(409, message);

/**
 * A named refusal: one rule of the API that answers a status of its own (409 Conflict, 413, 422)
 * rather than a plain invalid input. It lives beside the code that applies it (module level, in
 * the service or a shared module), which throws `rule.error(message)`; every operation that can
 * meet it lists it in its metadata (`refuses`, src/schema/operation.ts), and the OpenAPI document
 * declares that status on the operation with the rule's description. So the rule that answers
 * 409 declares its 409.
 */
export interface Refusal {
  readonly status: number;
  /** The machine code it answers (`code` of the error object): its status's, or a more precise one. */
  readonly code: string;
  /** When it applies, for the OpenAPI document: one sentence, no full stop needed. */
  readonly description: string;
  error(message: string): ApiError;
}

const REFUSALS: Refusal[] = [];

export function refusal(status: number, description: string, code?: string): Refusal {
  const rule: Refusal = {
    status,
    code: code ?? ERROR_CODES[status] ?? 'ERROR',
    description,
    error: (message) => new ApiError(status, message, { code }),
  };
  REFUSALS.push(rule);
  return rule;
}

/** Every rule made so far (those of the modules loaded): a test checks each is declared by some operation. */
export const knownRefusals = (): readonly Refusal[] => REFUSALS;

/** Idempotency-Key (src/http/executor/stages/idempotency.ts): every POST mutation can meet these two. */
export const IDEMPOTENCY_KEY_BUSY = refusal(409, 'A request with this Idempotency-Key is still running; retry later');
export const IDEMPOTENCY_KEY_REUSED = refusal(422, 'This Idempotency-Key was used with other parameters');

export function errorBody(status: number, message: string, param?: string, code?: string): ErrorBody {
  return {
    statusCode: status,
    message,
    error: STATUS_NAMES[status] ?? 'Error',
    code: code ?? ERROR_CODES[status] ?? 'ERROR',
    ...(param ? { param } : {}),
  };
}

/** The machine code of an ApiError (its status's, unless it was given a more precise one). */
export const codeOf = (error: ApiError): string => error.extensions.code as string;

/** The request value an ApiError names (`badRequest(message, field)`), if any. */
export const paramOf = (error: ApiError): string | undefined => error.extensions.field as string | undefined;

/** The headers an ApiError's answer carries (Retry-After, WWW-Authenticate). */
export const headersOf = (error: ApiError): Record<string, string> | undefined =>
  (error.extensions.http as { headers?: Record<string, string> } | undefined)?.headers;

/** The same refusal with more headers on its answer (a page's rate-limit headers): the respond stage sends them. */
export function withHeaders(error: ApiError, headers: Record<string, string>): ApiError {
  return new ApiError(error.status, error.message, {
    headers: { ...headers, ...headersOf(error) },
    field: paramOf(error),
    code: codeOf(error),
  });
}

/** The ApiError behind a GraphQL error (graphql-js wraps resolver errors in a located copy). */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const original = (error as { originalError?: unknown } | null)?.originalError;
  return original instanceof ApiError ? original : undefined;
}

/**
 * GraphQL's own refusals (syntax, validation, variable coercion) are the client's fault: they
 * carry no originalError, or only another GraphQLError from coercion. Resolver crashes carry
 * a plain Error.
 */
export function isClientGraphQLError(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError) || apiErrorOf(error)) return false;
  const original = error.originalError;
  return !original || (original instanceof GraphQLError && !original.originalError);
}

/** The Retry-After of a 503 while the database is unreachable. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** What an unexpected failure answers: 503 (retry shortly) when the database is unreachable, else 500. */
export function unexpectedError(cause: unknown): ApiError {
  // A request that outlived its Idempotency-Key lease and saw a retry take the key over.
  if (cause instanceof ClaimLostError)
    return IDEMPOTENCY_KEY_BUSY.error('A request with this Idempotency-Key is still being processed; retry later.');
  return isDatabaseUnavailable(cause)
    ? new ApiError(503, 'The service is temporarily unavailable (database unreachable); retry shortly.', {
        headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
      })
    : new ApiError(500, 'Internal server error.');
}
