import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  parse,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting } from '../helpers/hosting.ts';
import { mcpClient } from '../helpers/mcp.ts';
import { runningServer } from '../helpers/servers.ts';
import { inputProblem, variableProblems } from '../../src/http/executor/input-errors.ts';
import { getSchema } from '../../src/schema/index.ts';

/** Refused input values are described in the API's words on every surface (src/http/executor/input-errors.ts). */
describe('the translation of GraphQL input-coercion errors', () => {
  const Colour = new GraphQLEnumType({ name: 'Colour', values: { red: {}, green: {}, blue: {} } });
  const Item = new GraphQLInputObjectType({
    name: 'Item',
    fields: {
      description: { type: new GraphQLNonNull(GraphQLString) },
      amount: { type: new GraphQLNonNull(GraphQLInt) },
      note: { type: GraphQLString, defaultValue: '' },
    },
  });
  const cases: [string, Parameters<typeof inputProblem>[0], unknown, string | undefined][] = [
    ['enum', Colour, 'purple', 'x must be one of red, green, blue.'],
    ['enum given a number', Colour, 3, 'x must be one of red, green, blue.'],
    ['String', GraphQLString, 42, 'x must be a string.'],
    ['ID', GraphQLID, { a: 1 }, 'x must be a string.'],
    ['ID as an integer', GraphQLID, 7, undefined],
    ['Int given text', GraphQLInt, '10', 'x must be an integer.'],
    ['Int given a fraction', GraphQLInt, 1.5, 'x must be an integer.'],
    ['Int out of 32 bits', GraphQLInt, 2 ** 31, 'x must be an integer from -2147483648 to 2147483647.'],
    ['Float', GraphQLFloat, 'NaN', 'x must be a number.'],
    ['Boolean', GraphQLBoolean, 'yes', 'x must be true or false.'],
    ['required, missing', new GraphQLNonNull(GraphQLString), undefined, 'x is required.'],
    ['required, null', new GraphQLNonNull(GraphQLString), null, 'x is required.'],
    ['optional, null', GraphQLString, null, undefined],
    ['input object given text', Item, 'abc', 'x must be an object.'],
    ['input object, unknown field', Item, { description: 'a', amount: 1, colour: 'red' }, 'x has no field colour.'],
    ['input object, missing field', Item, { amount: 1 }, 'x.description is required.'],
    [
      'list element path',
      new GraphQLList(Item),
      [
        { description: 'a', amount: 1 },
        { description: 'b', amount: 2 },
        { description: 'c', amount: 'lots' },
      ],
      'x[2].amount must be an integer.',
    ],
    ['list of enums', new GraphQLList(Colour), ['red', 'mauve'], 'x[1] must be one of red, green, blue.'],
    ['one value for a list', new GraphQLList(GraphQLInt), 5, undefined],
    ['valid input object (default used)', Item, { description: 'a', amount: 1 }, undefined],
  ];
  it.each(cases)('%s', (_name, type, value, expected) => {
    expect(inputProblem(type, value, 'x')).toBe(expected);
  });

  it("the API's own scalars state their rule; an operation's variables are each checked, defaults applied", () => {
    const schema = getSchema();
    const doc = parse('query ($a: DateTime!, $b: Int = 5, $c: String) { __typename }');
    expect(variableProblems(schema, doc, undefined, { a: 'yesterday', c: false })).toEqual([
      'a must be an ISO 8601 timestamp.',
      'c must be a string.',
    ]);
    expect(variableProblems(schema, doc, undefined, { a: '2030-01-01T00:00:00Z' })).toEqual([]);
  });
});

describe('the same words on REST, GraphQL and MCP', () => {
  let app: TestApp;
  let c: Customer;
  let serverId: string;
  let hostingId: string;
  const internals = /Expected type|cannot represent|PowerAction|Variable "\$|\bString\b/;

  beforeAll(async () => {
    app = await startTestApp();
    c = await app.customer();
    serverId = await runningServer(app, c);
    hostingId = await activeHosting(app, c);
  });
  afterAll(() => app?.stop());

  it('REST: a bad enum in the path, a number for a string, a list element of an input object', async () => {
    const power = await app.call('POST', `/v1/servers/${serverId}/power/explode`, { key: c.key });
    expect(power.status).toBe(400);
    expect(power.body).toEqual({
      statusCode: 400,
      message: 'action must be one of reboot, start, stop.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'action',
    });
    const snapshot = await app.call('POST', `/v1/servers/${serverId}/snapshots`, { key: c.key, body: { name: 42 } });
    expect(snapshot.body).toEqual({
      statusCode: 400,
      message: 'name must be a string.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'name',
    });
    const cron = await app.call('PUT', `/v1/hosting/${hostingId}/cron`, {
      key: c.key,
      body: {
        jobs: [
          { schedule: '@daily', command: 'a' },
          { schedule: '@daily', command: 7 },
        ],
      },
    });
    expect(cron.body).toEqual({
      statusCode: 400,
      message: 'jobs[1].command must be a string.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'jobs[1].command',
    });
    expect((await app.call('GET', '/v1/servers?limit=ten', { key: c.key })).body).toEqual({
      statusCode: 400,
      message: 'limit must be an integer.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'limit',
    });
    expect((await app.call('GET', '/v1/servers?limit=2.5', { key: c.key })).body.message).toBe(
      'limit must be an integer.',
    );
    const extra = await app.call('PUT', `/v1/hosting/${hostingId}/cron`, {
      key: c.key,
      body: { jobs: [{ schedule: '@daily', command: 'a', user: 'root' }] },
    });
    expect(extra.body).toEqual({
      statusCode: 400,
      message: 'jobs[0] has no field user.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'jobs[0]',
    });
  });

  it('GraphQL with variables: the GraphQL error shape, the same message', async () => {
    const power = await gql(
      app,
      'mutation ($id: ID!, $action: PowerAction!) { serverPower(id: $id, action: $action) { id } }',
      { key: c.key, variables: { id: serverId, action: 'explode' } },
    );
    expect(power.status).toBe(400);
    expect(power.body.data).toBeUndefined();
    expect(power.body.errors).toHaveLength(1);
    expect(power.body.errors[0]).toMatchObject({
      message: 'action must be one of reboot, start, stop.',
      extensions: { code: 'BAD_REQUEST', status: 400 },
    });
    const snapshot = await gql(
      app,
      'mutation ($id: ID!, $name: String!) { serverSnapshotCreate(id: $id, name: $name) { id } }',
      { key: c.key, variables: { id: serverId, name: 42 } },
    );
    expect(snapshot.body.errors.map((e: { message: string }) => e.message)).toEqual(['name must be a string.']);
    for (const res of [power, snapshot]) expect(JSON.stringify(res.body)).not.toMatch(internals);
  });

  it('MCP tool calls: the same error object', async () => {
    const client = await mcpClient(app.url, c.key);
    const power = await client.callTool({ name: 'server_power', arguments: { id: serverId, action: 'explode' } });
    expect(power.isError).toBe(true);
    expect(power.structuredContent).toEqual({
      statusCode: 400,
      message: 'action must be one of reboot, start, stop.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'action',
    });
    const snapshot = await client.callTool({ name: 'server_snapshot_create', arguments: { id: serverId, name: 42 } });
    expect(snapshot.structuredContent).toEqual({
      statusCode: 400,
      message: 'name must be a string.',
      error: 'Bad Request',
      code: 'BAD_REQUEST',
      param: 'name',
    });
    expect(JSON.stringify([power.content, snapshot.content])).not.toMatch(internals);
    await client.close();
  });
});
