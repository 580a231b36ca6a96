import { parse, print, validate } from 'graphql';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/http/graphql/graphql.ts';
import { getSchema } from '../../src/schema/index.ts';
import { restProjection, restProjections } from '../../src/schema/rest-projection.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

/**
 * GraphQL's query limits (src/http/graphql/graphql.ts, docs/REFERENCE.md: Security): a hostile document is refused
 * with a 400 while it is parsed or validated — before any resolver runs, so no SQL of the
 * fields it names is sent (counted at the driver through startTestApp's onQuery).
 */
// REST and MCP run each operation's REST projection (no graph edges) on the full schema.
const schema = getSchema();
const projections = await restProjections(schema);
const selectionOf = (op: Operation): string => print(restProjection(projections, op).document);

let app: TestApp;
let c: Customer;
const sql: string[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { onQuery: (s) => sql.push(s) });
  c = await app.customer();
});
afterAll(() => app?.stop());

/** Sends a document and returns the answer and the SQL it caused on the tables it asks about. */
async function send(query: string, body?: unknown) {
  await app.running.app.runDueWork();
  sql.length = 0;
  const res =
    body === undefined
      ? await gql(app, query, { key: c.key })
      : await app.call('POST', '/graphql', { key: c.key, body });
  // The statements of the fields these documents name (background work — the event relay, its
  // transactions — may run meanwhile and is not counted).
  const ran = sql.filter((s) => /"(Server|ServerIp|Snapshot|ServerAddon|Pool|Account)"/.test(s));
  return { res, ran };
}

function expectRefused({ res, ran }: Awaited<ReturnType<typeof send>>, message: RegExp) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors[0].message).toMatch(message);
  expect(res.body.errors[0].extensions.status).toBe(400);
  expect(ran).toEqual([]);
}

describe('GraphQL query limits', () => {
  it('every document REST and MCP build for an operation fits the limits', () => {
    const rules = [
      maxDepthRule({ n: GRAPHQL_LIMITS.maxDepth }),
      costLimitRule({ maxCost: GRAPHQL_LIMITS.maxCost }),
      maxAliasesRule({ n: GRAPHQL_LIMITS.maxAliases }),
    ];
    const ops = listOperations(schema);
    for (const op of ops) expect(validate(schema, parse(selectionOf(op)), rules), op.name).toEqual([]);
    expect(ops.length).toBeGreaterThan(100);
  });

  it('a plain query runs (and its SQL is seen)', async () => {
    const { res, ran } = await send('{ account { id } servers { nodes { id } } }');
    expect(res.status, res.text).toBe(200);
    expect(ran.some((s) => /"Server"/.test(s))).toBe(true);
  });

  it(`refuses a document nested deeper than ${GRAPHQL_LIMITS.maxDepth}`, async () => {
    const n = GRAPHQL_LIMITS.maxDepth;
    const deep = `{ servers { nodes { ips { ${'a { '.repeat(n)}b${' }'.repeat(n)} } } } }`;
    expectRefused(await send(deep), new RegExp(`depth limit of ${n}`, 'i'));
  });

  it(`refuses a document whose cost is over ${GRAPHQL_LIMITS.maxCost} (every field of a pool, ${GRAPHQL_LIMITS.maxAliases} times)`, async () => {
    const pool = listOperations(schema).find((op) => op.name === 'pool')!;
    const body = selectionOf(pool)
      .replace(/^query[^{]*\{\s*pool\(id: \$id\)/, '')
      .trim()
      .replace(/\}$/, '')
      // Without the projection's REST-name aliases: this document is over the cost limit alone.
      .replace(/\b\w+: (?=\w)/g, '');
    const query = `{ ${Array.from({ length: GRAPHQL_LIMITS.maxAliases }, (_, i) => `p${i}: pool(id: "pool_x") ${body}`).join(' ')} }`;
    expectRefused(await send(query), /cost limit/i);
  });

  it(`refuses more than ${GRAPHQL_LIMITS.maxAliases} aliases`, async () => {
    expectRefused(
      await send(`{ ${Array.from({ length: 16 }, (_, i) => `s${i}: servers { nodes { id } }`).join(' ')} }`),
      /aliases limit of 15/i,
    );
  });

  it(`refuses more than ${GRAPHQL_LIMITS.maxDirectives} directives`, async () => {
    expectRefused(
      await send(`{ servers ${'@include(if: true) '.repeat(11)}{ nodes { id } } }`),
      /directives limit of 10/i,
    );
  });

  it(`refuses a document of more than ${GRAPHQL_LIMITS.maxTokens} tokens`, async () => {
    expectRefused(
      await send(`{ servers { nodes { ${'id '.repeat(GRAPHQL_LIMITS.maxTokens)}} } }`),
      /token limit of 2000/i,
    );
  });

  it('refuses introspection nested through fields → type → fields (graphql-js MaxIntrospectionDepthRule)', async () => {
    expectRefused(
      await send('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }'),
      /introspection depth/i,
    );
  });

  it('still answers the standard introspection query', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const { res } = await send(getIntrospectionQuery());
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses batching (an array body) before running anything', async () => {
    const { res, ran } = await send('', [
      { query: '{ servers { nodes { id } } }' },
      { query: '{ servers { nodes { id } } }' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/batching/i);
    expect(ran).toEqual([]);
  });

  it('answers syntax and validation errors with 400 and extensions.status (not 200)', async () => {
    const syntax = await send('{ servers {');
    expectRefused(syntax, /Syntax Error/);
    expect(syntax.res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const invalid = await send('{ servers { nope } }');
    expectRefused(invalid, /Cannot query field "nope"/);
    expect(invalid.res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variables = await gql(app, 'query($l: Int) { servers(first: $l) { nodes { id } } }', {
      key: c.key,
      variables: { l: 'ten' },
    });
    expect(variables.status, variables.text).toBe(400);
    expect(variables.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});
