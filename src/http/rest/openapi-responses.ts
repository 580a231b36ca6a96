import {
  ERROR_CODES,
  IDEMPOTENCY_KEY_BUSY,
  IDEMPOTENCY_KEY_REUSED,
  OUTAGE_RETRY_AFTER_SECONDS,
  STATUS_NAMES,
  type Refusal,
} from '../../errors.ts';
import { API_REVISION } from '../../version.ts';
import { REQUESTS_PER_MINUTE } from '../admission/rate-limit.ts';

/**
 * The responses of the OpenAPI document: every status, header and content type /v1 can send,
 * each taken from the code that sends it. The statuses every operation can meet (the request
 * pipeline's stages: src/http/pipeline), the Idempotency-Key's (executor/stages/idempotency.ts)
 * and each operation's named refusals (`refuses` on its metadata, src/errors.ts `refusal`).
 */

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** `components.headers`: each header /v1 sets, described once. */
export const HEADERS: Record<string, { description: string; schema: object }> = {
  'X-Request-Id': {
    description:
      'The request id: the X-Request-Id the request carried (1–100 of A–Z a–z 0–9 _ . : -), else a new UUID. Every log line of the request names it (server.ts).',
    schema: { type: 'string', maxLength: 100, examples: ['6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f'] },
  },
  'API-Version': {
    description: 'The interface revision that answered (the `apiVersion` of events).',
    schema: { type: 'string', enum: [API_REVISION] },
  },
  'X-Content-Type-Options': {
    description: 'Always nosniff: the body is only what Content-Type says.',
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window.',
    schema: { type: 'integer', examples: [REQUESTS_PER_MINUTE] },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', examples: [119] },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) when the window resets.',
    schema: { type: 'integer', examples: [1773480660] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', examples: [OUTAGE_RETRY_AFTER_SECONDS] },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use (RFC 9110 §11.6.1).',
    schema: { type: 'string', examples: ['Bearer realm="api"'] },
  },
  'Idempotent-Replayed': {
    description:
      'Present (true) when this is the stored answer of an earlier request with the same Idempotency-Key, not a new run.',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description: 'Strong validator of this body: send it back in If-None-Match.',
    schema: { type: 'string', examples: ['"mB0Yx1yCqTfOq9Wc3nS2aQ"'] },
  },
  'Content-Disposition': {
    description: 'attachment; filename="..."; filename*=UTF-8\'\'... (RFC 6266).',
    schema: { type: 'string', examples: ['attachment; filename="index.html"; filename*=UTF-8\'\'index.html'] },
  },
  'Cache-Control': {
    description: 'private, no-store: a download is never cached.',
    schema: { type: 'string', enum: ['private, no-store'] },
  },
};

/** On every response of /v1 (pipeline/observe.ts), and the rate-limit counters on every admitted one (admission/admit.ts). */
const ALWAYS = [
  'X-Request-Id',
  'API-Version',
  'X-Content-Type-Options',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

/** What every operation can answer before or besides its own rules, with the headers that come with it. */
const GENERIC: Record<number, { description: string; headers?: string[] }> = {
  400: {
    description:
      'Invalid parameters, or a business rule refused the request (the message says which and `param` names the value).',
  },
  401: { description: 'Credential missing, invalid or expired.', headers: ['WWW-Authenticate'] },
  403: { description: 'The credential lacks the required scope.' },
  404: { description: 'Not found, or owned by another account.' },
  408: {
    description:
      'The request did not arrive in time (headers 15 s, whole request REQUEST_TIMEOUT_MS); the connection closes.',
  },
  429: {
    description: `Rate limit exceeded (${REQUESTS_PER_MINUTE} requests per minute per credential, and the account's ceiling).`,
    headers: ['Retry-After'],
  },
  431: { description: 'The request line and headers are larger than 16 KB; the connection closes.' },
  500: { description: 'Unexpected failure.' },
  503: { description: 'The database is unreachable: retry after the Retry-After seconds.', headers: ['Retry-After'] },
};

/** A request body is read on every method but GET (pipeline/body.ts): its size and its type can be refused. */
const BODY: Record<number, { description: string }> = {
  413: { description: 'The request body is larger than BODY_LIMIT_BYTES (1 MiB by default); the connection closes.' },
  415: { description: 'The request body is not JSON (Content-Type must be application/json).' },
};

export interface ResponsesOf {
  /** GET operations: ETag on 200, and 304. */
  conditional: boolean;
  /** The method sends a body that is read (any but GET). */
  readsBody: boolean;
  idempotencyKey: boolean;
  refuses: readonly Refusal[];
  /** The 200 (or 304) answer's content and extra headers. */
  success: { description: string; content?: object; headers?: string[] };
  /** The statuses of a body that is not JSON (an upload's multipart): its own 413/415 descriptions. */
  bodyStatuses?: Record<number, { description: string }>;
}

/** Every response an operation can send, each with its headers and content. */
export function responsesOf(o: ResponsesOf): Record<string, object> {
  const extra = o.idempotencyKey ? ['Idempotent-Replayed'] : [];
  const headersOf = (names: string[] = []) =>
    Object.fromEntries([...ALWAYS, ...extra, ...names].map((n) => [n, ref(n)]));
  const errors = new Map<number, { lines: string[]; headers: string[] }>();
  const add = (status: number, description: string, headers: string[] = []) => {
    const entry = errors.get(status) ?? { lines: [], headers: [] };
    entry.lines.push(description);
    entry.headers.push(...headers.filter((h) => !entry.headers.includes(h)));
    errors.set(status, entry);
  };
  for (const [status, g] of Object.entries(GENERIC)) add(Number(status), g.description, g.headers);
  if (o.readsBody) for (const [status, b] of Object.entries(o.bodyStatuses ?? BODY)) add(Number(status), b.description);
  const rules = [...(o.idempotencyKey ? [IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED] : []), ...o.refuses];
  for (const rule of rules)
    add(rule.status, `${rule.description}${rule.code !== ERROR_CODES[rule.status] ? ` (code ${rule.code})` : ''}.`);
  const shared = sharedResponses();
  const out: Record<string, object> = {
    200: {
      description: o.success.description,
      headers: headersOf([...(o.conditional ? ['ETag'] : []), ...(o.success.headers ?? [])]),
      ...(o.success.content ? { content: o.success.content } : {}),
    },
  };
  if (o.conditional)
    out[304] = {
      description: 'Not modified: the body is the one the If-None-Match tag names (none sent).',
      headers: headersOf(['ETag']),
    };
  for (const [status, { lines, headers }] of [...errors].sort(([a], [b]) => a - b)) {
    const common = SHARED[status];
    if (common && lines.length === 1 && lines[0] === shared[common].description) {
      out[status] = { $ref: `#/components/responses/${common}` };
      continue;
    }
    const description =
      lines.length === 1
        ? lines[0]
        : `${STATUS_NAMES[status]}, when:\n${lines.map((l) => `- ${l.replace(/\.$/, '')}`).join('\n')}`;
    out[status] = {
      description,
      headers: headersOf(headers),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

/**
 * The refusals every operation meets the same way, before it runs (so never with an operation's
 * own headers): `components.responses`, referenced, so the document says each once.
 */
const SHARED: Record<number, string> = {
  401: 'Unauthorized',
  408: 'RequestTimeout',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  503: 'ServiceUnavailable',
};

export function sharedResponses(): Record<string, { description: string; headers: object; content: object }> {
  return Object.fromEntries(
    Object.entries(SHARED).map(([status, name]) => {
      const s = Number(status);
      const { description, headers = [] } = { ...GENERIC[s], ...BODY[s] } as {
        description: string;
        headers?: string[];
      };
      return [
        name,
        {
          description,
          headers: Object.fromEntries([...ALWAYS, ...headers].map((n) => [n, ref(n)])),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ];
    }),
  );
}

/** The error object, its value sets derived: the reason phrases of STATUS_NAMES and the codes given. */
export function errorSchema(codes: readonly string[]): object {
  return {
    type: 'object',
    required: ['statusCode', 'message', 'error', 'code'],
    properties: {
      statusCode: { type: 'integer', description: 'The HTTP status.', examples: [400] },
      message: {
        type: 'string',
        description: 'What went wrong and what to do, for a person.',
        examples: ['name must be 1 to 64 characters.'],
      },
      error: {
        type: 'string',
        description: 'The HTTP reason phrase.',
        enum: [...new Set([...Object.values(STATUS_NAMES), 'Error'])],
        examples: ['Bad Request'],
      },
      code: {
        type: 'string',
        description: "Machine-readable (GraphQL's extensions.code): the status's own, or a refusal's more precise one.",
        enum: [...new Set(codes)],
        examples: ['BAD_REQUEST'],
      },
      param: {
        type: 'string',
        description: 'The request value at fault, by its path (`name`, `jobs[1].command`), when there is one.',
        examples: ['name'],
      },
    },
    additionalProperties: false,
  };
}
