import { isInputObjectType, isIntrospectionType, isInterfaceType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { SCOPES } from '../scopes.ts';
import { inputSchemaOf, jsonSchemaOf, objectSchemaOf, type JsonSchema } from '../schema/json-schema.ts';
import { listOperations, RATE_LIMIT_CLASSES } from '../schema/operation.ts';
import { API_REVISION } from '../version.ts';
import { REQUESTS_PER_MINUTE } from './rate-limit.ts';
import { binaryRoutes } from './binary-routes.ts';

const ERROR_RESPONSES: Record<string, string> = {
  400: 'Invalid parameters or a business rule refused the request.',
  401: 'Credential missing, invalid or expired.',
  403: 'The credential lacks the required scope.',
  404: 'Not found, or owned by another account.',
  429: `Rate limit exceeded (${REQUESTS_PER_MINUTE} requests per minute per credential).`,
  500: 'Unexpected failure.',
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};

/** Conditional reads (plugins/conditional.ts): every GET operation. */
const ETAG_HEADER = { ETag: { description: 'Strong validator of this body: send it back in If-None-Match.', schema: { type: 'string' } } };
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'ETags from earlier answers (or *): 304 with no body when the body would be the same. A 304 does not count against the rate limit.',
};

/**
 * The OpenAPI 3.1 document of /v1, built from the same operation metadata sofa serves:
 * true parameter locations, request bodies, scopes and every error status.
 */
export function buildOpenApi(schema: GraphQLSchema, serverUrl = '/v1'): object {
  const schemas: Record<string, JsonSchema> = {
    Error: {
      type: 'object',
      required: ['statusCode', 'message', 'error', 'code'],
      properties: {
        statusCode: { type: 'integer', description: 'The HTTP status.' },
        message: { type: 'string', description: 'What went wrong and what to do, for a person.' },
        error: { type: 'string', description: 'The HTTP reason phrase.' },
        code: { type: 'string', description: "Machine-readable: BAD_REQUEST, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, RATE_LIMITED, … (GraphQL's extensions.code)." },
        param: { type: 'string', description: 'The request value at fault, by its path (`name`, `jobs[1].command`), when there is one.' },
      },
    },
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || type.name.startsWith('__')) continue;
    if (type === schema.getQueryType() || type === schema.getMutationType() || type === schema.getSubscriptionType()) continue;
    if (isObjectType(type) || isInputObjectType(type) || isInterfaceType(type)) schemas[type.name] = objectSchemaOf(type);
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of listOperations(schema)) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    const body: JsonSchema = { type: 'object', properties: {}, required: [] as string[], additionalProperties: false };
    for (const arg of op.field.args) {
      const argSchema = inputSchemaOf(arg);
      const where = op.argLocation(arg);
      if (where === 'body') {
        (body.properties as Record<string, unknown>)[arg.name] = argSchema;
        if (isNonNullType(arg.type)) (body.required as string[]).push(arg.name);
      } else {
        parameters.push({ name: arg.name, in: where, required: where === 'path' || isNonNullType(arg.type), schema: argSchema, ...(arg.description ? { description: arg.description } : {}) });
      }
    }
    if (op.idempotencyKey) {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'Retries with the same key within 24 hours return the first result.' });
    }
    const conditional = op.method === 'GET';
    if (conditional) parameters.push(IF_NONE_MATCH);
    const errors: Record<string, string> = { ...ERROR_RESPONSES };
    if (op.idempotencyKey) {
      errors[409] = 'A request with this Idempotency-Key is still running.';
      errors[422] = 'This Idempotency-Key was used with other parameters.';
    }
    const limitNote = op.meta.rateLimit ? ` Rate limit class: ${RATE_LIMIT_CLASSES[op.meta.rateLimit].description}.` : '';
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.description,
      description: `Scope: \`${op.meta.scope}\`.${limitNote}`,
      tags: [op.meta.area],
      security: [{ bearer: [op.meta.scope] }],
      'x-scope': op.meta.scope,
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(body.properties as object).length
        ? { requestBody: { required: (body.required as string[]).length > 0, content: { 'application/json': { schema: (body.required as string[]).length ? body : { ...body, required: undefined } } } } }
        : {}),
      responses: {
        200: { description: 'Success.', headers: conditional ? { ...RATE_HEADERS, ...ETAG_HEADER } : RATE_HEADERS, content: { 'application/json': { schema: jsonSchemaOf(op.field.type) } } },
        ...(conditional ? { 304: { description: 'Not modified: the body is the one the If-None-Match tag names (none sent).', headers: { ...RATE_HEADERS, ...ETAG_HEADER } } } : {}),
        ...Object.fromEntries(
          Object.entries(errors).map(([status, description]) => [
            status,
            { description, headers: RATE_HEADERS, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          ]),
        ),
      },
    };
  }

  // Binary streams (hand-written routes): multipart request bodies and binary responses.
  for (const route of binaryRoutes()) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = route.query.map((q) => ({ name: q.name, in: 'query', required: q.required, description: q.description, schema: { type: 'string' } }));
    const errors: Record<string, string> = { ...ERROR_RESPONSES };
    if (route.upload) {
      errors[413] = 'The file is larger than the upload limit.';
      errors[415] = 'The body is not multipart/form-data.';
    }
    const success = route.response.contentType === 'application/json'
      ? { 'application/json': { schema: { $ref: '#/components/schemas/HostingFile' } } }
      : { [route.response.contentType]: { schema: { type: 'string', format: 'binary' } } };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.description,
      description: `Scope: \`${route.scope}\`. Streamed; not available over GraphQL or MCP.`,
      tags: [route.area],
      security: [{ bearer: [route.scope] }],
      'x-scope': route.scope,
      parameters: [...pathParams, ...query],
      ...(route.upload
        ? {
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: { type: 'object', required: [route.upload.field], properties: { [route.upload.field]: { type: 'string', format: 'binary', description: route.upload.description } } },
                },
              },
            },
          }
        : {}),
      responses: {
        200: {
          description: route.response.description,
          headers: {
            ...RATE_HEADERS,
            ...(route.response.contentType === 'application/json' ? {} : {
              'Content-Disposition': { description: 'attachment; filename="..."; filename*=UTF-8\'\'... (RFC 6266)', schema: { type: 'string' } },
              'Content-Length': { description: 'Size of the file in bytes.', schema: { type: 'integer' } },
            }),
          },
          content: success,
        },
        ...Object.fromEntries(
          Object.entries(errors).map(([status, description]) => [
            status,
            { description, headers: RATE_HEADERS, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          ]),
        ),
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Cloud Account API',
      version: API_REVISION,
      description: 'Servers, capacity pools, hosting, mail, domains, billing, tickets and webhooks of one customer account. Generated from the GraphQL schema served at /graphql.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: `API key (svc_...) or OAuth access token. Scopes: ${Object.keys(SCOPES).join(', ')}.` },
      },
      schemas,
    },
  };
}
