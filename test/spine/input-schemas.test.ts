import {
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLArgument,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { mcpClient } from '../helpers/mcp.ts';
import { z } from 'zod';
import { inputProblems, schemaOf } from '../../src/schema/input-schemas.ts';
import { cents, dnsName, emailAddress, inputProblem } from '../../src/core/input-schemas.ts';
import { inputSchemaOf } from '../../src/schema/json-schema.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { getSchema } from '../../src/schema/index.ts';

/** Input schemas (zod) declared once on an argument (src/schema/input-schemas.ts): checked, printed, worded alike. */
describe('the wording of a refusal', () => {
  const cases: [string, z.ZodType, unknown, string | undefined][] = [
    ['min and max', z.string().min(1).max(64), '', 'x must be 1 to 64 characters.'],
    ['max', z.string().min(1).max(64), 'a'.repeat(65), 'x must be 1 to 64 characters.'],
    ['within lengths', z.string().min(1).max(64), 'web-1', undefined],
    ['max alone', z.string().max(3), 'abcd', 'x must be at most 3 characters.'],
    ['min alone', z.string().min(10), 'short', 'x must be at least 10 characters.'],
    ['trim: blanks do not count', z.string().trim().min(1).max(64), '   ', 'x must be 1 to 64 characters.'],
    ['trim: surrounding blanks ignored', z.string().trim().max(2), '  ab  ', undefined],
    [
      'pattern',
      z.string().regex(/^[a-z0-9_]{1,16}$/, 'lowercase letters, digits or underscores'),
      'Bad-Name',
      'x must be lowercase letters, digits or underscores.',
    ],
    [
      'length before pattern',
      z
        .string()
        .min(1)
        .max(3)
        .regex(/^[a-z]+$/, 'letters'),
      'abcd!',
      'x must be 1 to 3 characters.',
    ],
    ['minimum and maximum', z.number().min(1).max(100), 0, 'x must be an integer from 1 to 100.'],
    ['maximum, a fraction', z.number().min(0).max(1), 1.5, 'x must be a number from 0 to 1.'],
    ['minimum alone', z.number().min(5), 4, 'x must be an integer at least 5.'],
    ['cents', cents(1, 500), 501, 'x must be an integer number of cents from 1 to 500.'],
    ['within range', z.number().min(1).max(100), 100, undefined],
    [
      'list size',
      z.array(z.string()).min(2).max(3).meta({ itemsNoun: 'host names' }),
      ['a.com'],
      'x must list 2 to 3 host names.',
    ],
    ['list size alone, default noun', z.array(z.string()).max(1), ['a', 'b'], 'x must list at most 1 entries.'],
    ['list elements', z.array(z.string().max(2)).max(3), ['ab', 'abc'], 'x[1] must be at most 2 characters.'],
    [
      'the list size before its elements',
      z.array(z.string().max(2)).max(1),
      ['ab', 'abc'],
      'x must list at most 1 entries.',
    ],
    ['one of', z.enum(['a', 'b', 'c']), 'd', 'x must be a, b or c.'],
    ['one of, in a list', z.array(z.enum(['a', 'b'])).max(2), ['a', 'z'], 'x[1] must be a or b.'],
    [
      'dns name',
      dnsName('domain'),
      'localhost',
      'x must be a domain name such as "example.com" (labels of letters, digits and hyphens, at most 253 characters).',
    ],
    ['dns name ok (case, trailing dot)', dnsName('domain'), 'Shop.Example.COM.', undefined],
    [
      'host name',
      dnsName('host'),
      'ns1..example.net',
      'x must be a host name such as "ns1.example.net" (labels of letters, digits and hyphens, at most 253 characters).',
    ],
    ['email', emailAddress(), 'ada.example.com', 'x must be an e-mail address such as "ada@example.com".'],
    ['email ok', emailAddress(), 'ada@example.com', undefined],
    ["absent values are the type's business", z.string().min(1), undefined, undefined],
  ];
  it.each(cases)('%s', (_name, schema, value, expected) => {
    expect(inputProblem(schema, value, 'x')).toBe(expected);
  });

  it('nested input objects and lists are named by their path', () => {
    const Item = new GraphQLInputObjectType({
      name: 'RuleItem',
      fields: {
        description: {
          type: new GraphQLNonNull(GraphQLString),
          extensions: { inputSchema: z.string().min(1).max(5) },
        },
        amount: { type: GraphQLInt, extensions: { inputSchema: z.number().min(1) } },
      },
    });
    const type = new GraphQLList(Item);
    const value = [
      { description: 'ok', amount: 1 },
      { description: 'toolong', amount: 0 },
    ];
    expect(inputProblems(type, z.array(z.unknown()).max(5), value, 'items')).toEqual([
      { message: 'items[1].description must be 1 to 5 characters.', path: 'items[1].description' },
      { message: 'items[1].amount must be an integer at least 1.', path: 'items[1].amount' },
    ]);
    expect(inputProblems(type, z.array(z.unknown()).max(1), value, 'items')).toEqual([
      { message: 'items must list at most 1 entries.', path: 'items' },
    ]);
  });

  it("prints each schema's keywords as z.toJSONSchema gives them (list bounds on the array, the rest on its items)", () => {
    const arg = (type: GraphQLArgument['type'], inputSchema: z.ZodType) =>
      ({ name: 'x', type, extensions: { inputSchema } }) as unknown as GraphQLArgument;
    expect(
      inputSchemaOf(
        arg(
          new GraphQLNonNull(GraphQLString),
          z
            .string()
            .min(1)
            .max(64)
            .regex(/^[a-z]+$/, 'letters'),
        ),
      ),
    ).toEqual({ type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z]+$' });
    expect(inputSchemaOf(arg(GraphQLInt, z.number().min(1).max(100)))).toEqual({
      type: ['integer', 'null'],
      format: 'int32',
      minimum: 1,
      maximum: 100,
    });
    expect(
      inputSchemaOf(
        arg(
          new GraphQLList(new GraphQLNonNull(GraphQLString)),
          z.array(dnsName('host')).min(2).max(13).meta({ itemsNoun: 'host names' }),
        ),
      ),
    ).toEqual({ type: ['array', 'null'], minItems: 2, maxItems: 13, items: { type: 'string', format: 'hostname' } });
    expect(inputSchemaOf(arg(GraphQLString, emailAddress()))).toMatchObject({ format: 'email' });
    expect(
      inputSchemaOf(arg(new GraphQLList(new GraphQLNonNull(GraphQLString)), z.array(z.enum(['a', 'b'])).max(2))),
    ).toEqual({ type: ['array', 'null'], maxItems: 2, items: { type: 'string', enum: ['a', 'b'] } });
  });
});

/** Declared rules in OpenAPI (every one: no drift) and MCP, and enforced alike on every surface. */
describe('declared rules over the wire', () => {
  let app: TestApp;
  let c: Customer;
  beforeAll(async () => {
    app = await startTestApp();
    c = await app.customer();
  });
  afterAll(() => app?.stop());

  // Body and input-type properties carry their example too (checked against the schema by the lint in test/docs/openapi-lint.test.ts).
  const withoutExamples = ({ examples: _examples, ...schema }: Record<string, unknown>) => schema;

  it('OpenAPI carries the keywords of every declared rule (parameters, bodies, input types)', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const schema = getSchema();
    let checked = 0;
    for (const op of listOperations(restView(schema))) {
      const path = op.path.replace(/:(\w+)/g, '{$1}');
      const entry = doc.paths[path][op.method.toLowerCase()];
      for (const arg of op.field.args) {
        if (!schemaOf(arg)) continue;
        const printed =
          op.argLocation(arg) === 'body'
            ? entry.requestBody.content['application/json'].schema.properties[arg.name]
            : entry.parameters.find((p: { name: string }) => p.name === arg.name).schema;
        expect(withoutExamples(printed), `${op.method} ${op.path} ${arg.name}`).toEqual(inputSchemaOf(arg));
        checked++;
      }
    }
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(type instanceof GraphQLInputObjectType)) continue;
      for (const field of Object.values(type.getFields())) {
        if (!schemaOf(field)) continue;
        expect(
          withoutExamples(doc.components.schemas[type.name].properties[field.name]),
          `${type.name}.${field.name}`,
        ).toEqual(inputSchemaOf(field));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('representative arguments: their keywords in OpenAPI and in the MCP input schemas', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const param = (path: string, method: string, name: string) =>
      doc.paths[path][method].parameters.find((p: { name: string }) => p.name === name).schema;
    expect(param('/servers', 'get', 'limit')).toMatchObject({ minimum: 1, maximum: 1000 });
    const client = await mcpClient(app.url, c.key, {
      'X-MCP-Toolsets': 'servers,pools,hosting,mail,domains,billing,tickets,webhooks,account',
    });
    const { tools } = await client.listTools();
    const input = (tool: string) =>
      tools.find((t) => t.name === tool)!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(input('servers_list').limit).toMatchObject({ minimum: 1, maximum: 1000 });
    const body = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema.properties;
    expect(body('/pools/{id}/servers', 'post').label).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
    expect(body('/servers/{id}/snapshots', 'post')).toMatchObject({
      name: { minLength: 1, maxLength: 64 },
      description: { maxLength: 500 },
    });
    expect(input('pool_server_create').label).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
    expect(input('domain_update').nameservers).toMatchObject({
      type: 'array',
      minItems: 2,
      maxItems: 13,
      items: { type: 'string', format: 'hostname' },
    });
    expect(input('pool_ips_apply').changes).toMatchObject({ type: 'array', minItems: 1, maxItems: 1024 });
    expect(input('webhook_create').events).toMatchObject({
      type: 'array',
      maxItems: 50,
      items: { type: 'string', enum: expect.arrayContaining(['server.created', '*']) },
    });
    expect(body('/webhooks', 'post')).toMatchObject({ url: { maxLength: 2048 }, description: { maxLength: 500 } });
    expect(param('/hosting/{id}/logs', 'get', 'kind')).toMatchObject({ enum: ['access', 'error'] });
    expect(input('mail_alias_create')).toMatchObject({
      destination: { format: 'email' },
      source_local: { pattern: expect.any(String) },
    });
    await client.close();
  });

  // The same refusal on REST, GraphQL (variables and literals) and MCP.

  interface Refusal {
    rest: [method: string, path: string, body?: Record<string, unknown>];
    field: string;
    /** Variable definitions and arguments of the GraphQL call. */
    varDefs: string;
    args: Record<string, unknown>;
    selection: string;
    tool: string;
    message: string;
    param: string;
    /** Where GraphQL names the argument otherwise: its call and refusal. */
    graphql?: Pick<Refusal, 'varDefs' | 'args' | 'selection' | 'message' | 'param'>;
  }

  async function expectRefusedEverywhere(r: Refusal) {
    const expected = { statusCode: 400, message: r.message, error: 'Bad Request', code: 'BAD_REQUEST', param: r.param };
    const rest = await app.call(r.rest[0], r.rest[1], { key: c.key, body: r.rest[2] });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual(expected);

    const kind = r.tool.endsWith('_list') || r.tool.endsWith('_get') ? 'query' : 'mutation';
    // GraphQL may name the argument its own way (a list's `first` is REST's `limit`).
    const g = { ...r, ...r.graphql };
    const names = Object.keys(g.args);
    const withVars = await gql(
      app,
      `${kind} (${g.varDefs}) { ${g.field}(${names.map((n) => `${n}: $${n}`).join(', ')}) ${g.selection} }`,
      { key: c.key, variables: g.args },
    );
    const literal = await gql(
      app,
      `${kind} { ${g.field}(${names.map((n) => `${n}: ${JSON.stringify(g.args[n])}`).join(', ')}) ${g.selection} }`,
      { key: c.key },
    );
    for (const res of [withVars, literal]) {
      expect(res.status).toBe(400);
      expect(res.body.data ?? undefined).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toMatchObject({
        message: g.message,
        extensions: { code: 'BAD_REQUEST', status: 400, field: g.param },
      });
    }

    const client = await mcpClient(app.url, c.key, {
      'X-MCP-Toolsets': 'servers,pools,hosting,mail,domains,billing,tickets,webhooks,account',
    });
    const tool = await client.callTool({ name: r.tool, arguments: r.args });
    expect(tool.isError).toBe(true);
    expect(tool.structuredContent).toEqual(expected);
    await client.close();
  }

  it('a range: limit', async () => {
    await expectRefusedEverywhere({
      rest: ['GET', '/v1/servers?limit=0'],
      field: 'servers',
      varDefs: '$limit: Int',
      args: { limit: 0 },
      selection: '{ hasMore }',
      tool: 'servers_list',
      message: 'limit must be an integer from 1 to 1000.',
      param: 'limit',
      graphql: {
        varDefs: '$first: Int',
        args: { first: 0 },
        selection: '{ pageInfo { hasNextPage } }',
        message: 'first must be an integer from 1 to 1000.',
        param: 'first',
      },
    });
  });

  it('authorization comes first: a credential lacking the scope gets 403, whatever the values', async () => {
    const reader = await app.customer({ scopes: ['account:read'] });
    const res = await app.call('POST', '/v1/servers/srv_missing/snapshots', {
      key: reader.key,
      body: { name: 'before upgrade', description: 'x'.repeat(501) },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/servers:write/);
  });

  it('a maximum length alone: a snapshot description (REST)', async () => {
    const res = await app.call('POST', '/v1/servers/srv_missing/snapshots', {
      key: c.key,
      body: { name: 'before upgrade', description: 'x'.repeat(501) },
    });
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'description must be at most 500 characters.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'description',
    });
  });

  it('a DNS-name format on each element of a list: nameservers', async () => {
    const nameservers = ['ns1.example.net', 'ns2..example.net'];
    await expectRefusedEverywhere({
      rest: ['PATCH', '/v1/domains/dom_missing', { nameservers }],
      field: 'domainUpdate',
      varDefs: '$id: ID!, $nameservers: [String!]',
      args: { id: 'dom_missing', nameservers },
      selection: '{ id }',
      tool: 'domain_update',
      message:
        'nameservers[1] must be a host name such as "ns1.example.net" (labels of letters, digits and hyphens, at most 253 characters).',
      param: 'nameservers[1]',
    });
  });

  it('a pattern: a hosting database suffix (the rule is checked before the account is looked up)', async () => {
    await expectRefusedEverywhere({
      rest: ['POST', '/v1/hosting/hst_missing/databases', { suffix: 'Shop-DB' }],
      field: 'hostingDatabaseCreate',
      varDefs: '$id: ID!, $suffix: String!',
      args: { id: 'hst_missing', suffix: 'Shop-DB' },
      selection: '{ name }',
      tool: 'hosting_database_create',
      message:
        'suffix must be 1 to 16 characters of lowercase letters, digits and underscores (the database is named <prefix>_<suffix>).',
      param: 'suffix',
    });
  });

  it('one of a set, on each element of a list: webhook event kinds', async () => {
    const events = ['server.created', 'server.exploded'];
    await expectRefusedEverywhere({
      rest: ['POST', '/v1/webhooks', { url: 'https://example.com/hook', events }],
      field: 'webhookCreate',
      varDefs: '$url: String!, $events: [String!]!',
      args: { url: 'https://example.com/hook', events },
      selection: '{ id }',
      tool: 'webhook_create',
      message: expect.stringMatching(/^events\[1\] must be (\S+, )+\S+ or \*\.$/) as unknown as string,
      param: 'events[1]',
    });
  });

  it('a length, blanks trimmed: a server label', async () => {
    const args = { id: 'pool_missing', productId: 'vps-s', label: '   ', osTemplate: 'ubuntu-24.04' };
    await expectRefusedEverywhere({
      rest: [
        'POST',
        '/v1/pools/pool_missing/servers',
        { productId: 'vps-s', label: '   ', osTemplate: 'ubuntu-24.04' },
      ],
      field: 'poolServerCreate',
      varDefs: '$id: ID!, $productId: String!, $label: String!, $osTemplate: String!',
      args,
      selection: '{ id }',
      tool: 'pool_server_create',
      message: 'label must be 1 to 64 characters.',
      param: 'label',
    });
  });

  it("a pattern: a server label is a host name's characters", async () => {
    const label = 'bad label with spaces!!';
    await expectRefusedEverywhere({
      rest: ['POST', '/v1/pools/pool_missing/servers', { productId: 'vps-s', label, osTemplate: 'ubuntu-24.04' }],
      field: 'poolServerCreate',
      varDefs: '$id: ID!, $productId: String!, $label: String!, $osTemplate: String!',
      args: { id: 'pool_missing', productId: 'vps-s', label, osTemplate: 'ubuntu-24.04' },
      selection: '{ id }',
      tool: 'pool_server_create',
      message:
        'label must be letters, digits, dots, hyphens and underscores, with no dot or hyphen at either end (such as "web-1").',
      param: 'label',
    });
  });
});
