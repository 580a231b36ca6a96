import fc from 'fast-check';
import type { Operation } from '../../src/schema/operation.ts';
import type { Json as JsonValue } from '../helpers/app.ts';
import type { Estate } from './estate.ts';
import { argsFor, pathValue } from './requests.ts';

/**
 * The fuzzer's requests (fuzz.test.ts): hostile values, and the requests for one operation of
 * the OpenAPI document built from valid values (an estate's resources) mixed with them.
 */

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}
/** A JSON object: an OpenAPI operation or schema, read as the document has it. */
export type JsonObject = Record<string, JsonValue>;
type Json = JsonObject;

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
export const anyJson = fc.oneof(
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

export interface Case {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function textOf(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
}

/** Requests for one operation of the OpenAPI document, sent as the estate's account. */
export function caseArb(
  path: string,
  method: string,
  doc: Json,
  op: Operation | undefined,
  e: Estate,
): fc.Arbitrary<Case> {
  const params: Param[] = (doc.parameters ?? []).filter((p: Param) => p.in !== 'header');
  const valid = op ? argsFor(op, e) : {};
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((p) => p.in === 'path'))
    pathArbs[p.name] = pathArb(
      (valid[p.name] as string | number | undefined) ?? pathValue(path.replace(/\{(\w+)\}/g, ':$1'), p.name, e),
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
      const headers: Record<string, string> = { Authorization: `Bearer ${e.customer.key}` };
      if (b) headers['Content-Type'] = b.type;
      return { url: q ? `${url}?${q}` : url, method: method.toUpperCase(), headers, body: b?.text };
    });
}
