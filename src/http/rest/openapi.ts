import {
  getNamedType,
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  isInputObjectType,
  isIntrospectionType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { AREAS } from '../../modules/areas.ts';
import { SCOPES } from '../../scopes.ts';
import { argumentsExample, exampleOf } from '../../schema/examples.ts';
import { inputSchemaOf, jsonSchemaOf, objectSchemaOf, type JsonSchema } from '../../schema/json-schema.ts';
import { listOperations, RATE_LIMIT_CLASSES } from '../../schema/operation.ts';
import { API_REVISION } from '../../version.ts';
import { ERROR_CODES, IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED } from '../../errors.ts';
import { binaryRoutes } from './binary-routes.ts';
import { errorSchema, HEADERS, responsesOf, sharedResponses } from './openapi-responses.ts';
import { apiGuide, AREA_TAGS, LICENSE } from './openapi-guide.ts';

const WEBHOOK_HEADERS: Record<string, [string, string]> = {
  'X-Service-Signature': [
    't=<Unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">, keyed with the subscription\'s secret.',
    't=1773480600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  ],
  'X-Service-Event-Id': ["The event's id.", 'evt_01jq8k2m4p6rab3c5d7e9f1g2h'],
  'X-Service-Event-Type': ["The event's kind.", 'server.power.changed'],
  'X-Service-Delivery-Id': [
    'The same on every attempt and redelivery: drop a repeat by it.',
    'whd_01jq8k2m4p6rab3c5d7e9f1g2h',
  ],
  'X-Service-Delivery-Attempt': ['1, 2, … for each attempt.', '1'],
};

/** What a webhook subscription's URL receives (OpenAPI 3.1 `webhooks`): the Event envelope, signed. */
function eventWebhook(): object {
  return {
    post: {
      operationId: 'eventDelivery',
      summary: 'Event delivery',
      description:
        'Each event of a subscribed kind is POSTed as JSON to the subscription\'s URL, signed (see "Webhooks and their signature"). Answer any 2xx within the timeout; anything else is retried.',
      tags: AREAS.flatMap((a) => ('api' in a && 'eventDeliveries' in a.api ? [a.name] : [])),
      security: [],
      parameters: Object.entries(WEBHOOK_HEADERS).map(([name, [description, example]]) => ({
        name,
        in: 'header',
        required: true,
        description,
        schema: { type: 'string' },
        example,
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/EventDelivery' } } },
      },
      responses: {
        200: { description: 'Any 2xx acknowledges the delivery.' },
        400: { description: 'Any other status (or none within the timeout) is retried with growing waits.' },
      },
    },
  };
}

/** The GraphQL type whose example a payload field of that JSON type takes (src/schema/examples.ts). */
const PAYLOAD_TYPES: Record<string, GraphQLType> = {
  integer: GraphQLInt,
  boolean: GraphQLBoolean,
  array: new GraphQLList(new GraphQLNonNull(GraphQLString)),
};

/**
 * The body of a webhook delivery: the Event envelope, one schema per kind (src/events/catalog.ts)
 * with its `type` and its `data` fields typed, discriminated by `type`.
 */
function eventDeliverySchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  for (const [kind, { fields }] of Object.entries(EVENT_TYPES)) {
    const name = `Event_${kind.replace(/\./g, '_')}`;
    mapping[kind] = `#/components/schemas/${name}`;
    const properties = Object.fromEntries(
      Object.entries<{
        type: string | readonly string[];
        format?: string;
        items?: { type: string };
        examples?: readonly unknown[];
      }>(fields).map(([field, s]) => {
        const example =
          s.examples?.[0] ?? exampleOf(PAYLOAD_TYPES[String(s.type)] ?? GraphQLString, field, { parent: 'EventData' });
        return [
          field,
          {
            ...s,
            type: Array.isArray(s.type) ? [...s.type] : s.type,
            description: `${field} of the ${kind} event.`,
            examples: [example],
          },
        ];
      }),
    );
    out[name] = {
      type: 'object',
      description: `A ${kind} event.`,
      allOf: [{ $ref: '#/components/schemas/Event' }],
      properties: {
        type: { const: kind, description: 'The event kind.', examples: [kind] },
        data: {
          type: 'object',
          description: `The payload of ${kind}.`,
          required: Object.keys(fields),
          properties,
          additionalProperties: false,
        },
      },
    };
  }
  out.EventDelivery = {
    description: 'What a webhook receives: the Event envelope of one of the kinds, its payload typed by `type`.',
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: 'type', mapping },
  };
  return out;
}

/** Conditional reads (conditional.ts): every GET operation. */
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    'ETags from earlier answers (or *): 304 with no body when the body would be the same. A 304 does not count against the rate limit.',
};

/**
 * The OpenAPI 3.1 document of /v1, built from the same operation metadata sofa serves:
 * true parameter locations, request bodies, scopes and every error status.
 */
export function buildOpenApi(schema: GraphQLSchema, serverUrl = '/v1'): object {
  const operations = listOperations(schema);
  const routes = binaryRoutes();
  const refusals = [
    ...operations.flatMap((op) => op.meta.refuses ?? []),
    ...routes.flatMap((r) => r.refuses ?? []),
    IDEMPOTENCY_KEY_BUSY,
    IDEMPOTENCY_KEY_REUSED,
  ];
  const schemas: Record<string, JsonSchema> = {
    Error: errorSchema([...Object.values(ERROR_CODES), 'ERROR', ...refusals.map((r) => r.code)]) as JsonSchema,
  };
  // A type only a subscription returns (the live changes) is no body of any REST route.
  const restReach = reachedFrom(schema, [schema.getQueryType(), schema.getMutationType()]);
  const subscriptionOnly = [...reachedFrom(schema, [schema.getSubscriptionType()])].filter((t) => !restReach.has(t));
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || type.name.startsWith('__') || subscriptionOnly.includes(type.name)) continue;
    if (type === schema.getQueryType() || type === schema.getMutationType() || type === schema.getSubscriptionType())
      continue;
    if (isObjectType(type) || isInputObjectType(type) || isInterfaceType(type))
      schemas[type.name] = objectSchemaOf(type, { examples: true });
  }
  Object.assign(schemas, eventDeliverySchemas());

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    const body: JsonSchema = { type: 'object', properties: {}, required: [] as string[], additionalProperties: false };
    const bodyExample: Record<string, unknown> = {};
    const examples = argumentsExample(op.field, op.path);
    for (const arg of op.field.args) {
      const where = op.argLocation(arg);
      if (where === 'body') {
        (body.properties as Record<string, unknown>)[arg.name] = inputSchemaOf(arg, {
          examples: true,
          example: examples[arg.name],
        });
        bodyExample[arg.name] = examples[arg.name];
        if (isNonNullType(arg.type)) (body.required as string[]).push(arg.name);
      } else {
        const schema = inputSchemaOf(arg);
        parameters.push({
          name: arg.name,
          in: where,
          required: where === 'path' || isNonNullType(arg.type),
          description: schema.description,
          schema,
          example: examples[arg.name],
        });
      }
    }
    if (op.idempotencyKey) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 255 },
        description: 'Retries with the same key within 24 hours return the first result.',
        example: '4f7d1c2e-9b8a-4c3d-a1e2-5f6a7b8c9d0e',
      });
    }
    const conditional = op.method === 'GET';
    if (conditional) parameters.push(IF_NONE_MATCH);
    const limitNote = op.meta.rateLimit
      ? ` Rate limit class: ${RATE_LIMIT_CLASSES[op.meta.rateLimit].description}.`
      : '';
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
        ? {
            requestBody: {
              required: (body.required as string[]).length > 0,
              content: {
                'application/json': {
                  schema: (body.required as string[]).length ? body : { ...body, required: undefined },
                  example: bodyExample,
                },
              },
            },
          }
        : {}),
      responses: responsesOf({
        conditional,
        readsBody: op.method !== 'GET',
        idempotencyKey: op.idempotencyKey,
        refuses: op.meta.refuses ?? [],
        success: {
          description: 'Success.',
          content: {
            'application/json': { schema: jsonSchemaOf(op.field.type), example: exampleOf(op.field.type, op.name) },
          },
        },
      }),
    };
  }

  // Binary streams (hand-written routes): multipart request bodies and binary responses.
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: route.params[m[1]].description,
      example: exampleOf(GraphQLID, m[1], { parent: route.params[m[1]].noun }),
    }));
    const query = route.query.map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required,
      description: q.description,
      schema: { type: 'string' },
      example: q.example,
    }));
    // A JSON answer of the API's own (an upload's HostingFile), not a file that happens to be JSON.
    const json = route.response.contentTypes.length === 1 && route.response.contentTypes[0] === 'application/json';
    const success = json
      ? {
          'application/json': {
            schema: { $ref: '#/components/schemas/HostingFile' },
            example: exampleOf(schema.getType('HostingFile')!, 'file'),
          },
        }
      : Object.fromEntries(
          [...new Set(route.response.contentTypes.map(mediaType))].map((type) => [
            type,
            { schema: { type: 'string', format: 'binary' } },
          ]),
        );
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
                  schema: {
                    type: 'object',
                    required: [route.upload.field],
                    properties: {
                      [route.upload.field]: { type: 'string', format: 'binary', description: route.upload.description },
                    },
                  },
                },
              },
            },
          }
        : {}),
      responses: responsesOf({
        conditional: false,
        readsBody: route.method !== 'GET',
        idempotencyKey: false,
        refuses: route.refuses ?? [],
        success: {
          description: route.response.description,
          content: success,
          headers: json ? [] : ['Content-Disposition', 'Cache-Control'],
        },
        bodyStatuses: {
          413: {
            description: 'The body is larger than the upload limit (HOSTING_UPLOAD_LIMIT_BYTES, 50 MiB by default).',
          },
          415: { description: 'The body is not multipart/form-data.' },
        },
      }),
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
      headers: HEADERS,
      responses: sharedResponses(),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `API key (svc_...) or OAuth access token. Scopes: ${Object.keys(SCOPES).join(', ')}.`,
        },
      },
      schemas,
    },
  };
}

/** A content type without its parameters (`text/html; charset=utf-8` → `text/html`): the media type a response is declared under. */
function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** The names of the types `roots` reach: through fields, their arguments, interfaces' implementations, unions' members. */
function reachedFrom(schema: GraphQLSchema, roots: readonly (GraphQLObjectType | null | undefined)[]): Set<string> {
  const seen = new Set<string>();
  const visit = (type: GraphQLType) => {
    const named: GraphQLNamedType = getNamedType(type);
    if (seen.has(named.name)) return;
    seen.add(named.name);
    if (isObjectType(named) || isInterfaceType(named))
      for (const field of Object.values(named.getFields())) {
        visit(field.type);
        for (const arg of field.args) visit(arg.type);
      }
    if (isInputObjectType(named)) for (const field of Object.values(named.getFields())) visit(field.type);
    if (isInterfaceType(named)) for (const t of schema.getPossibleTypes(named)) visit(t);
    if (isUnionType(named)) for (const t of named.getTypes()) visit(t);
  };
  for (const root of roots)
    if (root)
      for (const field of Object.values(root.getFields())) {
        visit(field.type);
        for (const arg of field.args) visit(arg.type);
      }
  return seen;
}
