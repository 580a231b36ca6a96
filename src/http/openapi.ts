import { GraphQLID, isInputObjectType, isIntrospectionType, isInterfaceType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { SCOPES } from '../scopes.ts';
import { argumentsExample, exampleOf } from '../schema/examples.ts';
import { inputSchemaOf, jsonSchemaOf, objectSchemaOf, type JsonSchema } from '../schema/json-schema.ts';
import { listOperations, RATE_LIMIT_CLASSES } from '../schema/operation.ts';
import { API_REVISION } from '../version.ts';
import { REQUESTS_PER_MINUTE } from './rate-limit.ts';
import { binaryRoutes } from './binary-routes.ts';
import { apiGuide, AREA_TAGS, LICENSE } from './openapi-guide.ts';

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

const WEBHOOK_HEADERS: Record<string, [string, string]> = {
  'X-Service-Signature': ['t=<Unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">, keyed with the subscription\'s secret.', 't=1773480600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'],
  'X-Service-Event-Id': ["The event's id.", 'evt_01jq8k2m4p6rab3c5d7e9f1g2h'],
  'X-Service-Event-Type': ["The event's kind.", 'server.power.changed'],
  'X-Service-Delivery-Id': ['The same on every attempt and redelivery: drop a repeat by it.', 'whd_01jq8k2m4p6rab3c5d7e9f1g2h'],
  'X-Service-Delivery-Attempt': ['1, 2, … for each attempt.', '1'],
};

/** What a webhook subscription's URL receives (OpenAPI 3.1 `webhooks`): the Event envelope, signed. */
function eventWebhook(): object {
  return {
    post: {
      operationId: 'eventDelivery',
      summary: 'Event delivery',
      description: 'Each event of a subscribed kind is POSTed as JSON to the subscription\'s URL, signed (see "Webhooks and their signature"). Answer any 2xx within the timeout; anything else is retried.',
      tags: ['webhooks'],
      security: [],
      parameters: Object.entries(WEBHOOK_HEADERS).map(([name, [description, example]]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example })),
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } } },
      responses: {
        200: { description: 'Any 2xx acknowledges the delivery.' },
        400: { description: 'Any other status (or none within the timeout) is retried with growing waits.' },
      },
    },
  };
}

/** Conditional reads (conditional.ts): every GET operation. */
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
        statusCode: { type: 'integer', description: 'The HTTP status.', examples: [400] },
        message: { type: 'string', description: 'What went wrong and what to do, for a person.', examples: ['name must be 1 to 64 characters.'] },
        error: { type: 'string', description: 'The HTTP reason phrase.', examples: ['Bad Request'] },
        code: { type: 'string', description: "Machine-readable: BAD_REQUEST, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, RATE_LIMITED, … (GraphQL's extensions.code).", examples: ['BAD_REQUEST'] },
        param: { type: 'string', description: 'The request value at fault, by its path (`name`, `jobs[1].command`), when there is one.', examples: ['name'] },
      },
    },
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || type.name.startsWith('__')) continue;
    if (type === schema.getQueryType() || type === schema.getMutationType() || type === schema.getSubscriptionType()) continue;
    if (isObjectType(type) || isInputObjectType(type) || isInterfaceType(type)) schemas[type.name] = objectSchemaOf(type, { examples: true });
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of listOperations(schema)) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    const body: JsonSchema = { type: 'object', properties: {}, required: [] as string[], additionalProperties: false };
    const bodyExample: Record<string, unknown> = {};
    const examples = argumentsExample(op.field, op.path);
    for (const arg of op.field.args) {
      const where = op.argLocation(arg);
      if (where === 'body') {
        (body.properties as Record<string, unknown>)[arg.name] = inputSchemaOf(arg, { examples: true, example: examples[arg.name] });
        bodyExample[arg.name] = examples[arg.name];
        if (isNonNullType(arg.type)) (body.required as string[]).push(arg.name);
      } else {
        const schema = inputSchemaOf(arg);
        parameters.push({ name: arg.name, in: where, required: where === 'path' || isNonNullType(arg.type), description: schema.description, schema, example: examples[arg.name] });
      }
    }
    if (op.idempotencyKey) {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'Retries with the same key within 24 hours return the first result.', example: '4f7d1c2e-9b8a-4c3d-a1e2-5f6a7b8c9d0e' });
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
      summary: op.meta.summary,
      description: `${op.description}\n\nScope: \`${op.meta.scope}\`.${limitNote}`,
      tags: [op.meta.area],
      security: [{ bearer: [op.meta.scope] }],
      'x-scope': op.meta.scope,
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(body.properties as object).length
        ? { requestBody: { required: (body.required as string[]).length > 0, content: { 'application/json': { schema: (body.required as string[]).length ? body : { ...body, required: undefined }, example: bodyExample } } } }
        : {}),
      responses: {
        200: { description: 'Success.', headers: conditional ? { ...RATE_HEADERS, ...ETAG_HEADER } : RATE_HEADERS, content: { 'application/json': { schema: jsonSchemaOf(op.field.type), example: exampleOf(op.field.type, op.name) } } },
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
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1], in: 'path', required: true, schema: { type: 'string' },
      description: m[1] === 'id' ? 'The hosting account id.' : 'The backup id.', example: exampleOf(GraphQLID, m[1], { parent: m[1] === 'id' ? 'hosting' : undefined }),
    }));
    const query = route.query.map((q) => ({ name: q.name, in: 'query', required: q.required, description: q.description, schema: { type: 'string' }, example: q.example }));
    const errors: Record<string, string> = { ...ERROR_RESPONSES };
    if (route.upload) {
      errors[413] = 'The file is larger than the upload limit.';
      errors[415] = 'The body is not multipart/form-data.';
    }
    const success = route.response.contentType === 'application/json'
      ? { 'application/json': { schema: { $ref: '#/components/schemas/HostingFile' }, example: exampleOf(schema.getType('HostingFile')!, 'file') } }
      : { [route.response.contentType]: { schema: { type: 'string', format: 'binary' } } };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      description: `${route.description}\n\nScope: \`${route.scope}\`. Streamed; not available over GraphQL or MCP.`,
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
      description: apiGuide(schema),
      license: LICENSE,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    tags: AREA_TAGS,
    paths,
    webhooks: { event: eventWebhook() },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: `API key (svc_...) or OAuth access token. Scopes: ${Object.keys(SCOPES).join(', ')}.` },
      },
      schemas,
    },
  };
}
