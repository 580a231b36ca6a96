import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_NAMES } from '../../src/errors.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { startTestApp, type Json as JsonValue, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient, type ToolResult } from '../helpers/mcp.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, refusalChecker, type Estate } from './estate.ts';
import { argsFor, documentFor, pathValue } from './requests.ts';

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
 * `FUZZ_CASES=<n>` to run more locally.
 */
const CASES = Number(process.env.FUZZ_CASES ?? 24);
const SEED = Number(process.env.FUZZ_SEED ?? 20260816);
const schema = getSchema();
const operations = new Map(listOperations(schema).map((op) => [op.name, op]));

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}
/** A JSON object: an OpenAPI operation or schema, read as the document has it. */
type Json = Record<string, JsonValue>;

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

// ---------------------------------------------------------------------------------------------
// Hostile values

const LONG = 'A'.repeat(100_000);
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\u202eevil\u202c',
    '😀'.repeat(50),
    '\ud800',
    'x\udfff',
    '../../../../etc/passwd',
    '..\\..\\windows\\win.ini',
    '/public_html/../../private',
    '%2e%2e%2f%2e%2e%2f',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell-style lookup, sent literally as hostile input
    '${jndi:ldap://x}',
    '{{7*7}}',
    '\r\nX-Injected: 1',
    '__proto__',
    'constructor',
    'null',
    '-1',
    '1e308',
    'NaN',
    LONG,
    'é'.repeat(20_000),
  ),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.string({ maxLength: 20, unit: 'grapheme' }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(
    1e308,
    -1e308,
    -1,
    0,
    -0,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31),
    2 ** 53 + 2,
    1.5,
    0.1,
    Number.MAX_SAFE_INTEGER,
    1e-300,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
/** Deep nesting: arrays and objects 200 levels down (JSON.parse copes; the API must too). */
const deep = fc.constantFrom(
  JSON.parse('['.repeat(200) + ']'.repeat(200)),
  JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`),
);
const anyJson = fc.oneof(
  hostileText,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  deep,
  fc.array(hostileText, { maxLength: 5 }),
);

/** A value for a parameter or field: usually valid (so the request gets past the first check), else hostile. */
function valueArb(valid: unknown, schema: Json | undefined): fc.Arbitrary<unknown> {
  const typed: fc.Arbitrary<unknown>[] = [];
  const type = schema?.type ?? schema?.items?.type;
  if (type === 'integer' || type === 'number') typed.push(hostileNumber);
  if (type === 'string') typed.push(hostileText);
  if (type === 'array')
    typed.push(fc.array(anyJson, { maxLength: 3 }), fc.constant(Array.from({ length: 10_000 }, () => valid)));
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: typed.length ? fc.oneof(...typed) : anyJson },
    { weight: 1, arbitrary: anyJson },
  );
}

/** Percent-encodes the UTF-8 bytes of any string (encodeURIComponent throws on lone surrogates). */
const enc = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Path segments: the real resource, or junk (percent-encoded, or raw invalid escapes). */
function pathArb(valid: string | number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(encodeURIComponent(String(valid))) },
    { weight: 2, arbitrary: hostileText.map((s) => enc(s.slice(0, 5000)) || '%20') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%00',
        '%2e%2e',
        '%2F..%2F',
        '%C0%AE',
        '%FF%FE',
        `${encodeURIComponent(String(valid))}%00`,
        '0',
        '-1',
        '99999999999999999999',
        '1e3',
        'null',
      ),
    },
  );
}

interface Case {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function textOf(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
}

/** Requests for one operation of the OpenAPI document. */
function caseArb(path: string, method: string, doc: Json, op: Operation | undefined): fc.Arbitrary<Case> {
  const params: Param[] = (doc.parameters ?? []).filter((p: Param) => p.in !== 'header');
  const valid = op ? argsFor(op, E) : {};
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((p) => p.in === 'path'))
    pathArbs[p.name] = pathArb(
      (valid[p.name] as string | number | undefined) ?? pathValue(path.replace(/\{(\w+)\}/g, ':$1'), p.name, E),
    );
  const queryArbs = params
    .filter((p) => p.in === 'query')
    .map((p) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(valid[p.name] === undefined ? [] : [[p.name, textOf(valid[p.name])]]) },
        { weight: 1, arbitrary: fc.constant([] as string[][]) },
        { weight: 2, arbitrary: valueArb(valid[p.name], p.schema).map((v) => [[p.name, textOf(v)]]) },
        {
          weight: 1,
          arbitrary: fc.tuple(hostileText, hostileText).map(([a, b]) => [
            [p.name, a],
            [p.name, b],
          ]),
        },
      ),
    );
  const extraQuery = fc.oneof(
    { weight: 5, arbitrary: fc.constant([] as string[][]) },
    { weight: 1, arbitrary: fc.tuple(hostileText, hostileText).map(([k, v]) => [[k || 'x', v]]) },
  );

  const bodySchema: Json | undefined = doc.requestBody?.content?.['application/json']?.schema;
  const props: Record<string, Json> = bodySchema?.properties ?? {};
  const fieldArbs = Object.fromEntries(
    Object.entries(props).map(([name, s]) => [
      name,
      fc.oneof(
        { weight: 6, arbitrary: valueArb(valid[name], s).map((v) => ({ v })) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
    ]),
  );
  const objectBody = fc
    .tuple(
      fc.record(fieldArbs),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(hostileText, anyJson) },
      ),
    )
    .map(([fields, extra]) => {
      const out: Record<string, unknown> = {};
      for (const [k, w] of Object.entries(fields)) if (w) out[k] = (w as { v: unknown }).v;
      if (extra) out[extra[0] || 'extra'] = extra[1];
      return { text: JSON.stringify(out), type: 'application/json' };
    });
  const otherBody = fc.oneof(
    anyJson.map((v) => ({ text: JSON.stringify(v) ?? 'null', type: 'application/json' })),
    fc.constantFrom(
      { text: '{"a":', type: 'application/json' },
      { text: '{"__proto__":{"admin":true}}', type: 'application/json' },
      { text: '{"constructor":{"prototype":{"x":1}}}', type: 'application/json' },
      { text: '['.repeat(100_000), type: 'application/json' },
      { text: '{}', type: 'text/plain' },
      { text: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
      { text: '\u0000\u0001\u0002', type: 'application/json' },
      { text: `"${LONG}"`, type: 'application/json' },
      { text: '{}', type: 'application/json; charset=latin1' },
    ),
  );
  // fetch cannot send a GET body; DELETE bodies are fuzzed.
  const body =
    method === 'get'
      ? fc.constant(undefined)
      : method === 'delete'
        ? fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: otherBody })
        : fc.oneof(
            { weight: 6, arbitrary: objectBody },
            { weight: 2, arbitrary: otherBody },
            { weight: 1, arbitrary: fc.constant(undefined) },
          );

  return fc
    .record({ path: fc.record(pathArbs), query: fc.tuple(fc.tuple(...queryArbs), extraQuery), body })
    .map(({ path: pp, query: [qs, extra], body: b }) => {
      let url = `/v1${path}`;
      for (const [name, v] of Object.entries(pp)) url = url.replace(`{${name}}`, v as string);
      const search = new URLSearchParams();
      for (const pairs of [...(qs as string[][][]), extra]) for (const [k, v] of pairs) search.append(k, v);
      const q = search.toString();
      const headers: Record<string, string> = { Authorization: `Bearer ${E.customer.key}` };
      if (b) headers['Content-Type'] = b.type;
      return { url: q ? `${url}?${q}` : url, method: method.toUpperCase(), headers, body: b?.text };
    });
}

// ---------------------------------------------------------------------------------------------

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
      const cases = fc.sample(caseArb(path, method, doc, op), { seed: SEED, numRuns: CASES });
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
        if (res.isError) {
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
