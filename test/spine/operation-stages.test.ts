import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app-services.ts';
import type { OperationCall } from '../../src/http/executor/call.ts';
import { compiled } from '../../src/http/executor/compile.ts';
import { OPERATION_STAGES } from '../../src/http/executor/index.ts';
import { authorize } from '../../src/http/executor/stages/authorize.ts';
import { execute } from '../../src/http/executor/stages/execute.ts';
import { idempotency } from '../../src/http/executor/stages/idempotency.ts';
import { project } from '../../src/http/executor/stages/project.ts';
import { operationRateLimit } from '../../src/http/executor/stages/rate-limit.ts';
import { remember } from '../../src/http/executor/stages/remember.ts';
import { restate } from '../../src/http/executor/stages/restate.ts';
import { textInput } from '../../src/http/executor/stages/text-input.ts';
import { authenticate, type Principal } from '../../src/modules/auth/service.ts';
import { resourceUrl } from '../../src/modules/oauth/resources.ts';
import { requestContext } from '../../src/schema/context.ts';
import { restProjection, restProjections, type RestProjections } from '../../src/schema/rest-projection.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * One test per stage of the one executor (src/http/executor/index.ts), each stage run on its
 * own over a call built as a surface builds it, against a real app's parts (its database, its
 * limits, its schema). The whole list is what every black-box test of REST, GraphQL and MCP runs.
 */

let app: TestApp;
let parts: App;
let projections: RestProjections;

beforeAll(async () => {
  app = await startTestApp();
  parts = app.running.app;
  projections = await restProjections(parts.schema);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

async function principalWith(scopes: string[]): Promise<Principal> {
  const customer = await app.customer({ scopes });
  return (await authenticate(
    parts.prisma,
    `Bearer ${customer.key}`,
    parts.clock.now(),
    resourceUrl(parts.config.publicBaseUrl, 'rest'),
    parts.principals,
  ))!;
}

interface CallOptions {
  principal: Principal | null;
  variables?: Record<string, unknown>;
  mcp?: { readOnly: boolean };
  idempotencyKey?: string;
}

/** A call of a named operation (a /v1 route, an MCP tool): its REST projection. */
function operationCall(kind: 'query' | 'mutation', name: string, opts: CallOptions): OperationCall {
  const projection = restProjection(projections, { kind, name });
  return callOf(compiled(parts.schema, projection.document, undefined, projection), opts);
}

/** A call of a client's document (/graphql, code mode). */
function documentCall(query: string, opts: CallOptions): OperationCall {
  return callOf(compiled(parts.schema, parse(query)), opts);
}

function callOf(document: ReturnType<typeof compiled>, opts: CallOptions): OperationCall {
  return {
    compiled: document,
    variables: opts.variables ?? {},
    context: requestContext({
      app: parts,
      principal: opts.principal,
      requestId: 'stage-test',
      log: parts.log,
      responseHeaders: new Headers(),
      mcp: opts.mcp,
      idempotencyKey: opts.idempotencyKey ?? null,
    }),
    timings: [],
  };
}

const statusOf = (call: OperationCall) =>
  (call.result?.errors?.[0] as { extensions?: { status?: number } } | undefined)?.extensions?.status;
const messageOf = (call: OperationCall) => call.result?.errors?.[0]?.message;
const createdId = (call: OperationCall) => (call.result?.data?.ticketCreate as { id?: string } | undefined)?.id;

describe('the executor', () => {
  it('runs its stages in one order, authorization first, shaping after the result', () => {
    expect(OPERATION_STAGES.map((s) => [s.name, s.finishing ?? false])).toEqual([
      ['authorize', false],
      ['text input', false],
      ['rate limit', false],
      ['confirm', false],
      ['idempotency', false],
      ['execute', false],
      ['restate', true],
      ['remember', true],
      ['project', true],
    ]);
  });
});

describe('authorize', () => {
  it("refuses a named operation outside the credential's scopes, whatever its kind: 401 without one, 403 naming it", async () => {
    const none = operationCall('query', 'servers', { principal: null });
    authorize(none);
    expect(statusOf(none)).toBe(401);
    const narrow = operationCall('query', 'servers', { principal: await principalWith(['tickets:read']) });
    authorize(narrow);
    expect([statusOf(narrow), messageOf(narrow)]).toEqual([403, expect.stringContaining('servers:read')]);
    const allowed = operationCall('query', 'servers', { principal: await principalWith(['servers:read']) });
    authorize(allowed);
    expect(allowed.result).toBeUndefined();
  });

  it("refuses a mutation document naming any operation outside the scopes; a query document keeps GraphQL's answer per field", async () => {
    const principal = await principalWith(['tickets:read']);
    const mutation = documentCall('mutation { ticketCreate(subject: "a", message: "b") { id } }', { principal });
    authorize(mutation);
    expect([statusOf(mutation), messageOf(mutation)]).toEqual([403, expect.stringContaining('tickets:write')]);
    const query = documentCall('{ servers { nodes { id } } }', { principal });
    authorize(query);
    expect(query.result).toBeUndefined();
  });

  it("applies MCP's exclusions: not a tool, a mutation in a read-only session, a subscription", async () => {
    const principal = await principalWith(['account:write', 'tickets:write', 'account:read']);
    const notTool = operationCall('mutation', 'accountPasswordChange', {
      principal,
      mcp: { readOnly: false },
      variables: { current_password: 'x', new_password: 'y' },
    });
    authorize(notTool);
    expect([statusOf(notTool), messageOf(notTool)]).toEqual([403, expect.stringContaining('not available over MCP')]);
    const readOnly = operationCall('mutation', 'ticketCreate', { principal, mcp: { readOnly: true } });
    authorize(readOnly);
    expect([statusOf(readOnly), messageOf(readOnly)]).toEqual([403, expect.stringContaining('read-only')]);
    const subscription = documentCall('subscription { events { id } }', { principal, mcp: { readOnly: false } });
    authorize(subscription);
    expect(statusOf(subscription)).toBe(400);
  });
});

describe('text input', () => {
  it('refuses a NUL character in a variable with a 400 naming its path, and in a literal', async () => {
    const principal = await principalWith(['tickets:write']);
    const variable = operationCall('mutation', 'ticketCreate', {
      principal,
      variables: { subject: 'ok', message: 'bad\u0000' },
    });
    textInput(variable);
    expect([statusOf(variable), messageOf(variable)]).toEqual([400, expect.stringMatching(/^message must not/)]);
    const literal = documentCall('mutation { ticketCreate(subject: "a\\u0000", message: "b") { id } }', { principal });
    textInput(literal);
    expect(statusOf(literal)).toBe(400);
  });
});

describe('rate limit', () => {
  it("counts an operation's own class and refuses past it with 429 and the class's headers", async () => {
    const principal = await principalWith(['servers:write']);
    const calls = Array.from({ length: 7 }, () =>
      operationCall('mutation', 'poolIpsApply', { principal, variables: { id: 'pool_x', changes: [] } }),
    );
    for (const call of calls) await operationRateLimit(call);
    expect(calls.slice(0, 6).every((c) => c.result === undefined)).toBe(true);
    const last = calls[6];
    expect([statusOf(last), last.context.responseHeaders.get('X-RateLimit-Limit')]).toEqual([429, '6']);
  });
});

describe('idempotency, execute and remember', () => {
  it('claims a key, runs inside the claim, stores the answer; a repeat replays it; other arguments get 422', async () => {
    const principal = await principalWith(['tickets:write']);
    const key = `stage-${Date.now()}`;
    const variables = { subject: 'Stage test', message: 'Runs once.' };
    const first = operationCall('mutation', 'ticketCreate', { principal, variables, idempotencyKey: key });
    await idempotency(first);
    expect(first.result).toBeUndefined();
    expect(first.within).toBeTypeOf('function');
    await execute(first);
    const created = createdId(first);
    expect(created).toMatch(/^tkt_/);
    await remember(first);

    const repeat = operationCall('mutation', 'ticketCreate', { principal, variables, idempotencyKey: key });
    await idempotency(repeat);
    expect(createdId(repeat)).toBe(created);
    expect(repeat.context.responseHeaders.get('Idempotent-Replayed')).toBe('true');

    const other = operationCall('mutation', 'ticketCreate', {
      principal,
      variables: { ...variables, message: 'Other.' },
      idempotencyKey: key,
    });
    await idempotency(other);
    expect(statusOf(other)).toBe(422);
    expect(await parts.prisma.ticket.count({ where: { accountId: principal.accountId } })).toBe(1);
  });

  it('frees the key of a refusal decided before the operation ran, so the retry runs', async () => {
    const principal = await principalWith(['tickets:write']);
    const key = `stage-free-${Date.now()}`;
    const call = operationCall('mutation', 'ticketCreate', {
      principal,
      variables: { subject: 'x', message: 'y' },
      idempotencyKey: key,
    });
    await idempotency(call);
    call.result = { errors: [(await import('../../src/errors.ts')).lacksScope('tickets:write')] };
    await remember(call);
    const records = await parts.prisma.idempotencyRecord.count({
      where: { credentialId: principal.credentialId, key },
    });
    expect(records).toBe(0);
  });
});

describe('restate', () => {
  it("states a variable GraphQL refused in the API's words, naming it", async () => {
    const call = operationCall('query', 'servers', {
      principal: await principalWith(['servers:read']),
      variables: { limit: 'many' },
    });
    await execute(call);
    restate(call);
    expect([statusOf(call), messageOf(call)]).toEqual([400, expect.stringMatching(/^limit must be an integer/)]);
  });
});

describe('project', () => {
  it("gives a named list operation's answer the REST envelope", async () => {
    const call = operationCall('query', 'servers', { principal: await principalWith(['servers:read']) });
    await execute(call);
    project(call);
    expect(call.result?.data?.servers).toEqual({ data: [], hasMore: false, nextCursor: null });
  });
});
