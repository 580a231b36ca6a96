import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_NAMES } from '../../src/errors.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type Json as JsonValue, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient, type ToolResult } from '../helpers/mcp.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, refusalChecker, type Estate } from './estate.ts';
import { anyJson, caseArb, type Case, type JsonObject as Json } from './fuzz-cases.ts';
import { argsFor, documentFor } from './requests.ts';

/**
 * OWASP API4/API8: a property-based fuzzer (fast-check, fixed seed) that builds requests for
 * every operation of the served OpenAPI document — path and query parameters and JSON bodies —
 * from valid values mixed with hostile ones: wrong JSON types, missing required and extra
 * fields, 100 KB strings, huge and negative numbers, unicode (RTL override, emoji, NUL, lone
 * surrogates), deep nesting, non-object bodies, malformed JSON, wrong content types, path
 * traversal and junk percent-encoding. Every answer must be:
 *
 * - never a 5xx;
 * - on an error, exactly the spec's error object `{ statusCode, message, error }` with
 *   `statusCode` equal to the HTTP status and `error` its reason phrase;
 * - on a 4xx, no change of the account's state (every row it owns, its hosting files).
 *
 * Cases are sampled, not shrunk, so one run lists every failure. CASES per operation,
 * `FUZZ_CASES=<n>` to run more locally. Against PostgreSQL (CI's second run) a third as many: the
 * inputs are the same, what differs is the database's and Redis's answers, which the first cases
 * of every operation already reach.
 */
const CASES = Number(process.env.FUZZ_CASES ?? (process.env.TEST_DATABASE_URL ? 8 : 24));
const SEED = Number(process.env.FUZZ_SEED ?? 20260816);
const schema = getSchema();
const operations = new Map(listOperations(restView(schema)).map((op) => [op.name, op]));

let app: TestApp;
let receiver: Receiver;
let E: Estate;
let openapi: Json;
let total = 0;
const findings: string[] = [];

/** An exception escaping a request would end the server process: a finding like a 5xx. */
const onUncaught = (err: unknown) => findings.push(`uncaught exception: ${String(err)}`);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true });
  receiver = await startReceiver();
  E = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 10_000_000 }), receiver);
  openapi = (await app.call('GET', '/v1/openapi.json')).body;
}, 120_000);

afterAll(async () => {
  console.log(
    `fuzz: ${total} cases (REST, GraphQL, MCP) over ${Object.values<object>(openapi?.paths ?? {}).reduce((n: number, p) => n + Object.keys(p).length, 0)} operations (${CASES} per operation, seed ${SEED})`,
  );
  process.off('uncaughtException', onUncaught);
  await receiver?.close();
  await app?.stop();
});

const KEYS = ['code', 'error', 'message', 'statusCode'];
/** The error object's keys, `param` (present only when a value is at fault) set aside. */
const errorKeys = (e: object) =>
  JSON.stringify(
    Object.keys(e)
      .filter((k) => k !== 'param')
      .sort(),
  );
let restState: ReturnType<typeof refusalChecker> | undefined;
/** undici's codes for a connection the other side closed before answering. */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

async function run(c: Case, label: string, binary: boolean): Promise<void> {
  restState ??= refusalChecker(app, E.customer.accountId);
  const before = await restState.before();
  let res: Response;
  const send = () =>
    fetch(app.url + c.url, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(20_000) });
  try {
    res = await send().catch((err: Error & { cause?: { code?: string } }) => {
      // A kept-alive connection the server closed as the client reused it (a race every HTTP
      // client meets under load): the client sends once more, on a new connection. A server that
      // crashed or hung fails again.
      if (!STALE_CONNECTION.has(err.cause?.code ?? '')) throw err;
      return send();
    });
  } catch (err) {
    const cause = (err as Error & { cause?: { code?: string } }).cause?.code;
    findings.push(
      `${label} ${c.method} ${c.url.slice(0, 200)} body=${(c.body ?? '').slice(0, 160)}: no answer: ${(err as Error).message}${cause ? ` (${cause})` : ''}`,
    );
    return;
  }
  total++;
  const text = await res.text();
  if (process.env.FUZZ_TRACE) console.log(`${label} ${c.method} ${c.url.slice(0, 100)} → ${res.status}`);
  const where = `${label} ${c.method} ${c.url.slice(0, 160)} body=${(c.body ?? '').slice(0, 160)} → ${res.status} ${text.slice(0, 200)}`;
  if (res.status >= 500) {
    findings.push(`5xx: ${where}`);
    return;
  }
  if (res.status >= 400) {
    let json: JsonValue;
    try {
      json = JSON.parse(text);
    } catch {
      findings.push(`error not JSON: ${where}`);
      return;
    }
    const ok =
      json &&
      typeof json === 'object' &&
      errorKeys(json) === JSON.stringify(KEYS) &&
      json.statusCode === res.status &&
      json.error === STATUS_NAMES[res.status] &&
      typeof json.message === 'string' &&
      json.message.length > 0;
    if (!ok) findings.push(`malformed error: ${where}`);
    const changed = await restState.changedSince(before);
    if (changed.length) findings.push(`state changed on ${res.status}: ${where} (${changed.join(', ')})`);
  } else if (!binary && res.status === 200) {
    try {
      JSON.parse(text);
    } catch {
      findings.push(`success not JSON: ${where}`);
    }
    // Let the relay number the events a success recorded before the next case snapshots the state.
    await app.running.app.runDueWork();
  }
}

/** Destructive operations last, so the estate lives as long as possible. */
function rank(path: string, method: string, doc: Json): number {
  if (doc['x-scope'] === 'servers:destroy') return 3;
  if (method === 'delete') return 2;
  if (path.includes('restore') || path.includes('revert') || path.includes('rotate')) return 1;
  return 0;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it(`never a 5xx, always the error object, no change on a 4xx (${CASES} cases per operation)`, async () => {
    const entries = Object.entries(openapi.paths as Record<string, Record<string, Json>>)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, doc]) => ({ path, method, doc })))
      .sort((a, b) => rank(a.path, a.method, a.doc) - rank(b.path, b.method, b.doc));
    expect(entries.length).toBeGreaterThanOrEqual(111);
    for (const { path, method, doc } of entries) {
      const binary = doc.description?.includes('Streamed');
      const op = operations.get(doc.operationId);
      const cases = fc.sample(caseArb(path, method, doc, op, E), { seed: SEED, numRuns: CASES });
      if (doc.requestBody?.content?.['multipart/form-data']) {
        // Uploads: the JSON bodies above become a wrong content type; add broken multipart.
        cases.push(
          {
            url: `/v1${path.replace('{id}', E.hostingId)}`,
            method: 'POST',
            headers: { Authorization: `Bearer ${E.customer.key}`, 'Content-Type': 'multipart/form-data; boundary=x' },
            body: '--x\r\nContent-Disposition: form-data; name="file"; filename="../../a"\r\n\r\nabc',
          },
          {
            url: `/v1${path.replace('{id}', E.hostingId)}`,
            method: 'POST',
            headers: { Authorization: `Bearer ${E.customer.key}`, 'Content-Type': 'multipart/form-data' },
            body: 'junk',
          },
          {
            url: `/v1${path.replace('{id}', E.hostingId)}`,
            method: 'POST',
            headers: { Authorization: `Bearer ${E.customer.key}`, 'Content-Type': 'multipart/form-data; boundary=x' },
            body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a\u0000.txt"\r\n\r\nabc\r\n--x--\r\n',
          },
          {
            url: `/v1${path.replace('{id}', E.hostingId)}`,
            method: 'POST',
            headers: { Authorization: `Bearer ${E.customer.key}`, 'Content-Type': 'multipart/form-data; boundary=x' },
            body: '--x\r\nContent-Disposition: form-data; name="file"; filename=".."\r\n\r\nabc\r\n--x--\r\n',
          },
          {
            url: `/v1${path.replace('{id}', E.hostingId)}?path=${encodeURIComponent('../../../etc')}`,
            method: 'POST',
            headers: { Authorization: `Bearer ${E.customer.key}`, 'Content-Type': 'multipart/form-data; boundary=x' },
            body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc\r\n--x--\r\n',
          },
        );
      }
      for (const c of cases) await run(c, doc.operationId, binary);
    }
    expect(findings).toEqual([]);
  }, 600_000);
});

describe('fuzzing GraphQL variables and MCP tool arguments', () => {
  const PER_OP = Math.max(4, Math.round(CASES / 3));
  let F: Estate;
  let mcp: Client;
  let graphqlState: ReturnType<typeof refusalChecker>;
  let mcpState: ReturnType<typeof refusalChecker>;
  beforeAll(async () => {
    // An estate of its own: the REST fuzzing above ends with the destructive operations.
    F = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 10_000_000 }), receiver);
    graphqlState = refusalChecker(app, F.customer.accountId);
    mcpState = refusalChecker(app, F.customer.accountId);
    mcp = await mcpClient(app.url, F.customer.key, { 'X-MCP-Toolsets': 'all' });
  }, 120_000);
  afterAll(() => mcp?.close());

  /** Arguments: each the valid one or, now and then, a hostile value (any JSON type). */
  const argsArb = (op: Operation) => {
    const valid = argsFor(op, F);
    return fc.record(
      Object.fromEntries(
        op.field.args.map((a) => [
          a.name,
          fc.oneof(
            { weight: 3, arbitrary: fc.constant(valid[a.name]) },
            { weight: 1, arbitrary: anyJson },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        ]),
      ),
    );
  };
  const ordered = [...operations.values()].sort(
    (a, b) =>
      Number(a.meta.scope === 'servers:destroy') - Number(b.meta.scope === 'servers:destroy') ||
      Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
  );

  it(`GraphQL: never a 5xx; every error has extensions.code and the HTTP status; no change on a 4xx (${PER_OP} per field)`, async () => {
    for (const op of ordered) {
      for (const raw of fc.sample(argsArb(op), { seed: SEED, numRuns: PER_OP })) {
        const variables = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
        const before = await graphqlState.before();
        const res = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${F.customer.key}` },
          body: JSON.stringify({ query: documentFor(schema, op), variables }),
          signal: AbortSignal.timeout(20_000),
        });
        total++;
        const body: JsonValue = await res.json();
        const where = `graphql ${op.name} ${JSON.stringify(variables).slice(0, 200)} → ${res.status} ${JSON.stringify(body).slice(0, 200)}`;
        if (res.status >= 500) findings.push(`5xx: ${where}`);
        else if (body.errors?.length) {
          if (
            !body.errors.every(
              (e: { extensions?: { code?: unknown; status?: unknown } }) =>
                typeof e.extensions?.code === 'string' && typeof e.extensions?.status === 'number',
            )
          )
            findings.push(`error without code/status: ${where}`);
          if (
            res.status !==
            Math.max(...body.errors.map((e: { extensions?: { status?: number } }) => e.extensions?.status ?? 0))
          )
            findings.push(`HTTP status is not the error's: ${where}`);
          if (res.status >= 400 && (await graphqlState.changedSince(before)).length)
            findings.push(`state changed on ${res.status}: ${where}`);
        } else await app.running.app.runDueWork();
      }
    }
    expect(findings).toEqual([]);
  }, 600_000);

  it(`MCP: never a 5xx; tool errors are the error object; no change on a refusal (${PER_OP} per tool)`, async () => {
    for (const op of ordered.filter((o) => !o.meta.notTool)) {
      for (const raw of fc.sample(argsArb(op), { seed: SEED + 1, numRuns: PER_OP })) {
        const args = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
        const before = await mcpState.before();
        let res: Partial<ToolResult> & { rpcError?: string };
        try {
          res = await callTool(mcp, op.meta.tool, args);
        } catch (err) {
          // The SDK refuses arguments that break the tool's input schema (JSON-RPC InvalidParams): a refusal too.
          res = { rpcError: (err as Error).message };
        }
        total++;
        const where = `mcp ${op.meta.tool} ${JSON.stringify(args).slice(0, 200)} → ${JSON.stringify(res).slice(0, 200)}`;
        const e = res.structuredContent;
        // A tool that spends or destroys asks first: the error object with the question and its
        // token (docs/REFERENCE.md: MCP, Confirmation). Nothing ran: the state check below holds.
        if (res.isError && e?.code === 'CONFIRMATION_REQUIRED' && e.statusCode === 428) {
          const { quote, confirmation, ...object } = e;
          if (typeof quote !== 'string' || typeof confirmation !== 'string' || object.error !== 'Precondition Required')
            findings.push(`malformed question: ${where}`);
        } else if (res.isError) {
          if (!e || errorKeys(e) !== JSON.stringify(KEYS) || e.error !== STATUS_NAMES[e.statusCode])
            findings.push(`malformed tool error: ${where}`);
          else if (e.statusCode >= 500) findings.push(`5xx: ${where}`);
        }
        if (res.isError || res.rpcError) {
          if ((await mcpState.changedSince(before)).length) findings.push(`state changed on a refusal: ${where}`);
        } else await app.running.app.runDueWork();
      }
    }
    expect(findings).toEqual([]);
  }, 600_000);
});
