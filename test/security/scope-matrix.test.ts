import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { binaryRoutes } from '../../src/http/rest/binary-routes.ts';
import { buildToolCatalog } from '../../src/mcp/catalog.ts';
import { ALL_SCOPES, type Scope } from '../../src/scopes.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type Json, type TestApp } from '../helpers/app.ts';
import { callTool } from '../helpers/mcp.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { SPEC_OPERATIONS } from '../spec-operations.ts';
import { accountState, buildEstate, type Estate } from './estate.ts';
import { areaScope, graphEdges, mcpSessions, mintScopeSets, type ScopeSet } from './matrix.ts';
import {
  argsFor,
  binaryRequest,
  everyRestRoute,
  hasResourceParam,
  inPool,
  missingArgsFor,
  missingLike,
  resourceParams,
  restRequest,
  sendGraphql,
  sendRest,
  type Args,
  type SendableRequest,
} from './requests.ts';

/**
 * OWASP API1 (broken object level authorization) and API5 (broken function level
 * authorization), on every operation of every surface, generated from the operation
 * metadata (listOperations + the binary routes + the MCP catalogue): a new operation is in
 * the matrix the moment it is declared.
 *
 * - no credential → 401;
 * - every scope set lacking the operation's scope → 403 with the scope named, even though the
 *   path names a real resource (the scope is checked before the resource is looked up): all 16
 *   single-scope keys without it and the key with every scope but it;
 * - another account's resource → 404 with exactly the body of a missing id (a full-scope key of
 *   account B on account A's ids), and B's own parent with A's child id (nested ids) → 404;
 * - MCP: a tool the scopes lack is not listed, and calling it is a tool error with statusCode 403;
 * - nothing of account A changes through all of it.
 *
 * The per-credential rate limit (120/min) is raised for this file only (Config.requestsPerMinute,
 * which exists for exactly this): the matrix sends a few thousand requests.
 */
/**
 * Operations no key or token may call, whatever its scopes (`caller: 'password session'`: the
 * account's password and sessions). A key gets that 403 before any resource is looked up, so they
 * have no 200 or 404 to show here; test/account/settings.test.ts drives them with a session.
 */
const keyRefused = (op: Operation) => op.meta.caller === 'password session';

const schema = getSchema();
const operations = listOperations(restView(schema));
const binaries = binaryRoutes();
const tools = buildToolCatalog(schema);

let app: TestApp;
let receiver: Receiver;
let A: Estate;
let B: Estate;
let stateBefore: Record<string, string>;
let sets: ScopeSet[] = [];
const counts = { rest: 0, graphql: 0, mcp: 0, restOps: 0, graphqlOps: 0, mcpTools: 0 };

const lacking = (scope: Scope) => sets.filter((s) => !s.scopes.includes(scope));
const rest = (req: SendableRequest, key?: string) => sendRest(app.url, req, key);
const graphql = (op: Operation, variables: Args, key?: string) => sendGraphql(app.url, schema, op, variables, key);

function check(failures: string[], ok: boolean, what: string) {
  if (!ok) failures.push(what);
}

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true });
  receiver = await startReceiver();
  A = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  B = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  sets = await mintScopeSets(app, A.customer.accountId);
  await app.running.app.runDueWork();
  stateBefore = await accountState(app, A.customer.accountId);
}, 180_000);

afterAll(async () => {
  const scopeSets =
    operations.reduce((n, op) => n + lacking(op.meta.scope).length, 0) +
    binaries.reduce((n, r) => n + lacking(r.scope).length, 0);
  console.log(
    `scope matrix: REST ${counts.restOps} operations (${operations.length} + ${binaries.length} binary), GraphQL ${counts.graphqlOps} fields, MCP ${counts.mcpTools} tools; ` +
      `${sets.length} keys, ${scopeSets} (operation × lacking scope set) pairs on REST; checks: REST ${counts.rest}, GraphQL ${counts.graphql}, MCP ${counts.mcp}, total ${counts.rest + counts.graphql + counts.mcp}`,
  );
  await receiver?.close();
  await app?.stop();
});

// Each case below sends thousands of requests: on a busy machine that can pass the default 30 s.
vi.setConfig({ testTimeout: 180_000 });

describe('the matrix is generated from the metadata', () => {
  it('covers every operation of the spec coverage table', () => {
    const covered = new Set([
      ...operations.map((op) => `${op.method} ${op.path}`),
      ...binaries.map((r) => `${r.method} ${r.path}`),
    ]);
    expect(SPEC_OPERATIONS.filter((s) => !covered.has(`${s.method} ${s.path}`))).toEqual([]);
    expect(sets).toHaveLength(ALL_SCOPES.length * 2);
    for (const op of operations) expect(lacking(op.meta.scope)).toHaveLength(ALL_SCOPES.length);
  });
});

describe('REST', () => {
  it("the generated requests are real: account A's own full-scope key reads every GET operation with 200", async () => {
    const failures: string[] = [];
    const refused = new Set<string>(operations.filter(keyRefused).map((op) => op.meta.rest));
    const reads = everyRestRoute(operations, binaries, A)
      .filter((r) => r.method === 'GET')
      .map((r) => ({ name: r.name, req: r.request() }));
    await inPool(reads, 4, async ({ name, req }) => {
      const res = await rest(req, A.customer.key);
      counts.rest++;
      if (refused.has(name))
        check(failures, res.status === 403 && res.body?.code === 'PASSWORD_SIGN_IN_REQUIRED', `${name}: ${res.text}`);
      else check(failures, res.status === 200, `${name}: ${res.status} ${res.text.slice(0, 200)}`);
    });
    expect(failures).toEqual([]);
    expect(reads.length).toBeGreaterThan(40);
  });

  it('no credential → 401 with WWW-Authenticate on every operation', async () => {
    const failures: string[] = [];
    const reqs = everyRestRoute(operations, binaries, A).map((r) => ({ name: r.name, req: r.request() }));
    await inPool(reqs, 6, async ({ name, req }) => {
      const res = await rest(req);
      counts.rest++;
      check(
        failures,
        res.status === 401 &&
          res.body?.statusCode === 401 &&
          res.body?.error === 'Unauthorized' &&
          /^Bearer/.test(res.headers.get('www-authenticate') ?? ''),
        `${name}: ${res.status} ${res.text}`,
      );
    });
    counts.restOps = reqs.length;
    expect(failures).toEqual([]);
  });

  it('every scope set lacking the scope → 403 naming it, on a real resource', async () => {
    const failures: string[] = [];
    const cases = everyRestRoute(operations, binaries, A).flatMap((r) =>
      lacking(r.scope).map((set) => ({
        name: `${r.name} [${set.label}]`,
        scope: r.scope,
        req: r.request(),
        key: set.key,
      })),
    );
    await inPool(cases, 6, async (c) => {
      const res = await rest(c.req, c.key);
      counts.rest++;
      const expected = {
        statusCode: 403,
        message: `This credential lacks the scope "${c.scope}".`,
        error: 'Forbidden',
        code: 'FORBIDDEN',
      };
      check(
        failures,
        res.status === 403 && JSON.stringify(res.body) === JSON.stringify(expected),
        `${c.name}: ${res.status} ${res.text}`,
      );
    });
    expect(failures).toEqual([]);
  });

  it("another account's resource → 404, the same body as a missing id (and a foreign child under one's own parent)", async () => {
    const failures: string[] = [];
    const full = B.customer.key;
    const withIds = operations.filter((op) => hasResourceParam(op.path) && !keyRefused(op));
    await inPool(withIds, 4, async (op) => {
      const foreignArgs = argsFor(op, A);
      const missingArgs = missingArgsFor(op.path, foreignArgs);
      const foreign = await rest(restRequest(op, foreignArgs), full);
      const missing = await rest(restRequest(op, missingArgs), full);
      counts.rest += 2;
      check(
        failures,
        foreign.status === 404 && foreign.text === missing.text,
        `${op.meta.rest}: foreign ${foreign.status} ${foreign.text} vs missing ${missing.status} ${missing.text}`,
      );
      const inner = resourceParams(op.path).filter((p) => p !== 'id');
      if (inner.length) {
        const nested = argsFor(op, B);
        const nestedMissing = { ...nested };
        for (const p of inner) {
          nested[p] = foreignArgs[p];
          nestedMissing[p] = missingLike(foreignArgs[p] as string | number);
        }
        const a = await rest(restRequest(op, nested), full);
        const b = await rest(restRequest(op, nestedMissing), full);
        counts.rest += 2;
        check(
          failures,
          a.status === 404 && a.text === b.text,
          `${op.meta.rest} (nested): ${a.status} ${a.text} vs ${b.status} ${b.text}`,
        );
      }
    });
    for (const r of binaries) {
      const foreign = await rest(binaryRequest(r, A), full);
      const missing = await rest(
        binaryRequest(
          r,
          A,
          Object.fromEntries(
            resourceParams(r.path).map((p) => [
              p,
              missingLike(r.path.includes(':bid') && p === 'bid' ? A.backupId : A.hostingId),
            ]),
          ),
        ),
        full,
      );
      counts.rest += 2;
      check(
        failures,
        foreign.status === 404 && foreign.text === missing.text,
        `${r.method} ${r.path}: foreign ${foreign.status} ${foreign.text} vs missing ${missing.status} ${missing.text}`,
      );
    }
    expect(failures).toEqual([]);
  });
});

describe('GraphQL', () => {
  it('no credential → 401 UNAUTHENTICATED on every field', async () => {
    const failures: string[] = [];
    await inPool(operations, 6, async (op) => {
      const res = await graphql(op, argsFor(op, A));
      counts.graphql++;
      const e = res.body.errors?.[0];
      check(
        failures,
        res.status === 401 && e?.extensions?.code === 'UNAUTHENTICATED' && !res.body.data?.[op.name],
        `${op.name}: ${res.status} ${JSON.stringify(res.body)}`,
      );
    });
    counts.graphqlOps = operations.length;
    expect(failures).toEqual([]);
  });

  it('every scope set lacking the scope → 403 FORBIDDEN naming it', async () => {
    const failures: string[] = [];
    const cases = operations.flatMap((op) => lacking(op.meta.scope).map((set) => ({ op, set })));
    await inPool(cases, 6, async ({ op, set }) => {
      const res = await graphql(op, argsFor(op, A), set.key);
      counts.graphql++;
      const e = res.body.errors?.[0];
      check(
        failures,
        res.status === 403 &&
          e?.extensions?.code === 'FORBIDDEN' &&
          e?.message === `This credential lacks the scope "${op.meta.scope}".` &&
          !res.body.data?.[op.name],
        `${op.name} [${set.label}]: ${res.status} ${JSON.stringify(res.body)}`,
      );
    });
    expect(failures).toEqual([]);
  });

  it("another account's resource → 404 NOT_FOUND with the message of a missing id", async () => {
    const failures: string[] = [];
    await inPool(
      operations.filter((op) => hasResourceParam(op.path) && !keyRefused(op)),
      4,
      async (op) => {
        const foreignArgs = argsFor(op, A);
        const missingArgs = missingArgsFor(op.path, foreignArgs);
        const foreign = await graphql(op, foreignArgs, B.customer.key);
        const missing = await graphql(op, missingArgs, B.customer.key);
        counts.graphql += 2;
        const f = foreign.body.errors?.[0];
        const m = missing.body.errors?.[0];
        check(
          failures,
          foreign.status === 404 && f?.extensions?.code === 'NOT_FOUND' && f?.message === m?.message,
          `${op.name}: ${JSON.stringify(foreign.body)} vs ${JSON.stringify(missing.body)}`,
        );
      },
    );
    expect(failures).toEqual([]);
  });
});

describe('GraphQL edges of the graph (every field declared with edge(), from the schema)', () => {
  const edges = graphEdges(schema);
  const fromAccount = edges.filter((e) => e.type.name === 'Account');

  it('every edge is found, and an edge below the account needs the scope that reaches its parent', () => {
    expect(fromAccount.length).toBeGreaterThanOrEqual(11);
    for (const e of edges.filter((x) => x.type.name !== 'Account'))
      expect(areaScope(edges, e.type.name), `${e.type.name}.${e.field.name}`).toBe(e.scope);
  });

  it("account's own full-scope key reads every edge of the account", async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${A.customer.key}` },
      body: JSON.stringify({
        query: `{ account { id ${fromAccount.map((e) => `${e.field.name} { __typename }`).join(' ')} } }`,
      }),
    });
    const body = (await res.json()) as Json;
    expect(body.errors).toBeUndefined();
    for (const e of fromAccount) expect(body.data.account[e.field.name], e.field.name).not.toBeNull();
  });

  it("every scope set lacking an edge's scope → FORBIDDEN naming it at that edge, and the rest of the data", async () => {
    const failures: string[] = [];
    const cases = fromAccount.flatMap((e) => lacking(e.scope).map((set) => ({ e, set })));
    await inPool(cases, 6, async ({ e, set }) => {
      const res = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${set.key}` },
        body: JSON.stringify({ query: `{ account { id ${e.field.name} { __typename } } }` }),
      });
      const body = (await res.json()) as Json;
      counts.graphql++;
      const err = body.errors?.[0];
      check(
        failures,
        body.errors?.length === 1 &&
          err.extensions?.code === 'FORBIDDEN' &&
          err.message === `This credential lacks the scope "${e.scope}".` &&
          err.path?.join('.') === `account.${e.field.name}` &&
          body.data?.account?.id === A.customer.accountId &&
          body.data.account[e.field.name] === null,
        `Account.${e.field.name} [${set.label}]: ${JSON.stringify(body)}`,
      );
    });
    expect(failures).toEqual([]);
    expect(cases.length).toBe(fromAccount.length * ALL_SCOPES.length);
  });
});

describe('MCP', () => {
  const sessions = mcpSessions();
  const clientFor = (key: string) => sessions.get(app.url, key);
  afterAll(() => sessions.close());

  it('no credential → 401 on a call of every tool', async () => {
    const failures: string[] = [];
    await inPool(tools, 6, async (tool) => {
      const res = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool.name, arguments: argsFor(tool.operation, A) },
        }),
      });
      const body = await res.json();
      counts.mcp++;
      check(
        failures,
        res.status === 401 && body.statusCode === 401 && /^Bearer/.test(res.headers.get('www-authenticate') ?? ''),
        `${tool.name}: ${res.status} ${JSON.stringify(body)}`,
      );
    });
    counts.mcpTools = tools.length;
    expect(failures).toEqual([]);
  });

  it('every scope set lacking the scope: the tool is not listed, and calling it is a 403 tool error', async () => {
    const failures: string[] = [];
    await inPool(sets, 3, async (set) => {
      const client = await clientFor(set.key);
      const listed = new Set((await client.listTools()).tools.map((t) => t.name));
      counts.mcp++;
      for (const tool of tools.filter((t) => !set.scopes.includes(t.scope))) {
        check(failures, !listed.has(tool.name), `${tool.name} listed for [${set.label}]`);
        const res = await callTool(client, tool.name, argsFor(tool.operation, A));
        counts.mcp++;
        const expected = {
          statusCode: 403,
          message: `This credential lacks the scope "${tool.scope}".`,
          error: 'Forbidden',
          code: 'FORBIDDEN',
        };
        check(
          failures,
          res.isError === true && JSON.stringify(res.structuredContent) === JSON.stringify(expected),
          `${tool.name} [${set.label}]: ${JSON.stringify(res)}`,
        );
      }
      for (const tool of tools.filter((t) => set.scopes.includes(t.scope)))
        check(failures, listed.has(tool.name), `${tool.name} not listed for [${set.label}]`);
    });
    expect(failures).toEqual([]);
  });

  it("another account's resource → a 404 tool error, the same as a missing id", async () => {
    const failures: string[] = [];
    const client = await clientFor(B.customer.key);
    await inPool(
      tools.filter((t) => hasResourceParam(t.operation.path)),
      3,
      async (tool) => {
        const foreignArgs = argsFor(tool.operation, A);
        const missingArgs = missingArgsFor(tool.operation.path, foreignArgs);
        const foreign = await callTool(client, tool.name, foreignArgs);
        const missing = await callTool(client, tool.name, missingArgs);
        counts.mcp += 2;
        check(
          failures,
          foreign.isError === true &&
            foreign.structuredContent?.statusCode === 404 &&
            JSON.stringify(foreign.structuredContent) === JSON.stringify(missing.structuredContent),
          `${tool.name}: ${JSON.stringify(foreign)} vs ${JSON.stringify(missing)}`,
        );
      },
    );
    expect(failures).toEqual([]);
  });
});

describe('afterwards', () => {
  it('nothing of account A changed (rows of every account table, hosting files)', async () => {
    await app.running.app.runDueWork();
    expect(await accountState(app, A.customer.accountId)).toEqual(stateBefore);
  });
});
