import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  print,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { BinaryRoute } from '../../src/schema/binary-operation.ts';
import { getSchema } from '../../src/schema/index.ts';
import type { Operation } from '../../src/schema/operation.ts';
import { restProjection, restProjections } from '../../src/schema/rest-projection.ts';
import type { Json } from '../helpers/app.ts';
import type { Estate } from './estate.ts';

/**
 * Valid-shaped requests for any operation, generated from its metadata (REST binding,
 * argument types and locations): path parameters name real resources of an estate, every
 * other argument a plausible value of its type. Shared by the scope matrix and the fuzzer.
 */

/** Values for arguments whose name says more than their type. */
const BY_NAME: Record<string, unknown> = {
  label: 'fixture',
  os: 'linux',
  osTemplate: 'ubuntu-24.04',
  name: 'nightly',
  description: 'fixture',
  hostname: 'host.example.com',
  domain: 'example.org',
  path: '/public_html/index.html',
  from: '/public_html/index.html',
  to: '/public_html/renamed.html',
  content: 'hello',
  suffix: 'blog',
  php_version: '8.2',
  kind: 'access',
  lines: 10,
  period: '24h',
  // Loopback only: a deploy the tests start connects nowhere else (nothing listens on 127.0.0.1:22).
  repo_url: 'git@127.0.0.1:acme/site.git',
  branch: 'main',
  basic_user: 'admin',
  password: 'a long enough password',
  local_part: 'grace',
  source_local: 'sales',
  destination: 'grace@example.org',
  quota_mb: 512,
  subject: 'Hello',
  message: 'Hello support',
  body: 'A reply',
  department: 'technical',
  priority: 'normal',
  events: ['*'],
  nameservers: ['ns1.example.com', 'ns2.example.com'],
  next: '/',
  addonId: 'addon-ipv4-1',
  vcpu: 8,
  ram2gb: 8,
  disk100: 2,
  ip16: 1,
  ipCount: 1,
  limit: 5,
  page: 1,
  jobs: [{ schedule: '*/5 * * * *', command: 'true' }],
  schedule: '*/5 * * * *',
  command: 'true',
  gateway: 'card',
  amount_usd_cents: 2500,
  resource: 'srv_01jq8k2m4p6rab3c5d7e9f1g2h',
  type: 'server.power.changed',
};

/** A plausible value of a GraphQL input type. */
function sampleOf(type: GraphQLInputType, name: string, op: Operation): unknown {
  if (name === 'productId')
    return op.meta.area === 'pools' && op.path.startsWith('/pools') && !op.path.endsWith('/servers')
      ? 'pool-fra1'
      : 'std-2c-4g-50';
  if (name === 'cursor') return undefined;
  if (Object.hasOwn(BY_NAME, name)) return BY_NAME[name];
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [sampleOf(inner.ofType, name, op)];
  const named = getNamedType(inner);
  if (isEnumType(named)) return named.getValues()[0].value;
  if (isInputObjectType(named)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(named.getFields())) out[f.name] = sampleOf(f.type, f.name, op);
    return out;
  }
  switch (named.name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    default:
      return 'x';
  }
}

/** The resource an `:id`-like path parameter names, by where it sits in the path. */
export function pathValue(path: string, param: string, e: Estate): string | number {
  if (param === 'snapshotId') return e.snapshotId;
  if (param === 'bid') return e.backupId;
  if (param === 'name') return e.databaseName;
  if (param === 'deliveryId') return e.deliveryId;
  if (param === 'addonId') return e.addonId;
  if (param === 'ip') return e.serverIp;
  if (param === 'action') return 'reboot';
  if (param !== 'id')
    throw new Error(`No fixture for path parameter :${param} of ${path}: add one to test/security/requests.ts`);
  const prefixes: [string, string | number][] = [
    ['/servers/', e.serverId],
    ['/pools/', e.poolId],
    ['/hosting/', e.hostingId],
    ['/mail/domains/', e.mailDomainId],
    ['/mail/mailboxes/', e.mailboxId],
    ['/mail/aliases/', e.aliasId],
    ['/domains/', e.domainId],
    ['/billing/invoices/', e.invoiceId],
    ['/tickets/', e.ticketId],
    ['/webhooks/', e.webhookId],
    ['/account/ssh-keys/', e.sshKeyId],
    ['/account/sessions/', e.sessionId],
  ];
  const hit = prefixes.find(([p]) => path.startsWith(p));
  if (!hit) throw new Error(`No fixture for :id of ${path}: add its resource to test/security/estate.ts`);
  return hit[1];
}

/** Path parameters that name an owned resource (the others — action, ip, addonId — are values). */
const RESOURCE_PARAMS = new Set(['id', 'snapshotId', 'bid', 'name', 'deliveryId']);

/** An id of the same shape that names nothing. */
export function missingLike(value: string | number): string | number {
  if (typeof value === 'number') return 2_000_000_000;
  const m = /^([a-z]+_)(.*)$/.exec(value);
  return m ? m[1] + '0'.repeat(m[2].length) : `${value.replace(/[^_]/g, 'z')}`;
}

/** The path parameters of `path` that name an owned resource. */
export const resourceParams = (path: string) =>
  [...path.matchAll(/:(\w+)/g)].map((m) => m[1]).filter((p) => RESOURCE_PARAMS.has(p));
export const hasResourceParam = (path: string) => resourceParams(path).length > 0;

export type Args = Record<string, unknown>;

/** Every argument of an operation: path parameters from the estate, the rest sampled. */
export function argsFor(op: Operation, e: Estate): Args {
  const args: Args = {};
  for (const arg of op.field.args) {
    let v = op.argLocation(arg) === 'path' ? pathValue(op.path, arg.name, e) : sampleOf(arg.type, arg.name, op);
    if (arg.name === 'domain' && op.path === '/mail/setup') v = e.mailDomain;
    // A webhook the tests create is delivered to their receiver, never to an outside host.
    if (arg.name === 'url') v = e.webhookUrl;
    if (arg.name === 'path' && op.method === 'GET' && op.path.endsWith('/files')) v = '/public_html';
    if (v !== undefined) args[arg.name] = v;
  }
  return args;
}

/** `args` with every owned resource of `path` replaced by an id of the same shape that names nothing. */
export function missingArgsFor(path: string, args: Args): Args {
  const missing = { ...args };
  for (const p of resourceParams(path)) missing[p] = missingLike(args[p] as string | number);
  return missing;
}

export interface RestRequest {
  method: string;
  url: string;
  body?: unknown;
}

/** The REST request of an operation with these arguments (path, query string and JSON body). */
export function restRequest(op: Operation, args: Args): RestRequest {
  let path = op.path;
  const query = new URLSearchParams();
  let body: Record<string, unknown> | undefined;
  for (const arg of op.field.args) {
    if (!(arg.name in args)) continue;
    const v = args[arg.name];
    const where = op.argLocation(arg);
    if (where === 'path') path = path.replace(`:${arg.name}`, encodeURIComponent(String(v)));
    else if (where === 'query') for (const item of Array.isArray(v) ? v : [v]) query.append(arg.name, String(item));
    else {
      body ??= {};
      body[arg.name] = v;
    }
  }
  const qs = query.toString();
  return { method: op.method, url: `/v1${path}${qs ? `?${qs}` : ''}`, body };
}

/** The binary route's request (path parameters from the estate). */
export function binaryRequest(
  route: BinaryRoute,
  e: Estate,
  params: Record<string, string | number> = {},
): { method: string; url: string; form?: FormData } {
  let path: string = route.path;
  for (const [, name] of route.path.matchAll(/:(\w+)/g))
    path = path.replace(`:${name}`, encodeURIComponent(String(params[name] ?? pathValue(route.path, name, e))));
  const query = route.query.some((q) => q.name === 'path')
    ? `?path=${encodeURIComponent(route.upload ? '/public_html' : '/public_html/index.html')}`
    : '';
  let form: FormData | undefined;
  if (route.upload) {
    form = new FormData();
    form.append(route.upload.field, new Blob([new Uint8Array(Buffer.from('uploaded'))]), 'upload.txt');
  }
  return { method: route.method, url: `/v1${path}${query}`, form };
}

/** A request as restRequest and binaryRequest make them. */
export type SendableRequest = { method: string; url: string; body?: unknown; form?: FormData };

/** Every operation and binary route with its REST name, method and scope; `request()` makes a fresh request of it. */
export function everyRestRoute(operations: readonly Operation[], routes: readonly BinaryRoute[], e: Estate) {
  return [
    ...operations.map((op) => ({
      name: op.meta.rest,
      method: op.method,
      scope: op.meta.scope,
      request: (): SendableRequest => restRequest(op, argsFor(op, e)),
    })),
    ...routes.map((r) => ({
      name: `${r.method} ${r.path}`,
      method: r.method,
      scope: r.scope,
      request: (): SendableRequest => binaryRequest(r, e),
    })),
  ];
}

/** Sends a REST or binary request to the app at `base`, with `key` as the Bearer credential. */
export async function sendRest(base: string, req: SendableRequest, key?: string) {
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  let body: BodyInit | undefined;
  if (req.form) body = req.form;
  else if (req.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(req.body);
  }
  const res = await fetch(base + req.url, { method: req.method, headers, body });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json, text };
}

/** Sends the operation's GraphQL document (documentFor) with these variables to the app at `base`. */
export async function sendGraphql(base: string, schema: GraphQLSchema, op: Operation, variables: Args, key?: string) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query: documentFor(schema, op), variables }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const documents = new Map<string, string>();
/** The REST projections (generated by sofa-api, as at boot) of the one schema the tests' apps serve. */
const projections = await restProjections(getSchema());

/** The GraphQL document of an operation: its REST projection (what REST and MCP run), variables named as REST names the arguments. */
export function documentFor(_schema: GraphQLSchema, op: Operation): string {
  let text = documents.get(op.name);
  if (!text) {
    text = print(restProjection(projections, op).document);
    documents.set(op.name, text);
  }
  return text;
}

/** Runs `fn` over `items` with at most `n` in flight (the machines have two cores). */
export async function inPool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
