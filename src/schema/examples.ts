import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLType,
} from 'graphql';
import { ID_PREFIX } from '../db/ids.ts';
import { API_REVISION } from '../version.ts';
import { schemaOf } from './input-schemas.ts';
import { keywordsOf, type InputKeywords } from '../core/input-schemas.ts';

/**
 * Examples of every argument, field and operation, derived once from what is declared: an
 * `example` in a field's or argument's extensions (`example(...)` below) wins; otherwise the
 * declared input schema (one of, bounds, format), then the value's name (an id names its resource by
 * prefix, money ends in cents, times in At), then its type. The OpenAPI document prints them
 * as property, parameter, request and response examples; its lint checks each against its schema.
 */

/** Spread into a Pothos field's or argument's options when the derived example would say too little. */
export function example(value: unknown) {
  return { extensions: { example: value } };
}

/**
 * A String field whose value is one of a fixed set, the list taken from where the code defines it
 * (an `as const` list, an enum's keys): OpenAPI and the MCP schemas print it as `enum`. Its example
 * is the one given, else the first value.
 */
export function values(list: readonly string[], exampleValue: string = list[0]) {
  return { extensions: { values: list, example: exampleValue } };
}

const AT = '2026-03-14T09:30:00.000Z';
const ID_TAIL = '01jq8k2m4p6rab3c5d7e9f1g2h';
/** Accounts alone have UUIDs (the spec's choice); every other id is `<prefix>_<26 chars>`. */
const ACCOUNT_ID = '5f0c8a7e-3b2d-4c1a-9e8f-6a7b8c9d0e1f';

/** Resource nouns (as in field names: `serverId`, `Server.id`) to their id prefix (src/db/ids.ts). */
const ID_NOUNS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ID_PREFIX).map(([noun, prefix]) => [noun.toLowerCase(), prefix])),
  attachedaddon: ID_PREFIX.serverAddon,
  serveraddonattachment: ID_PREFIX.serverAddon,
  serveraddon: ID_PREFIX.serverAddon,
  hostingaccount: ID_PREFIX.hosting,
  delivery: ID_PREFIX.webhookDelivery,
  transaction: ID_PREFIX.walletTransaction,
  bid: ID_PREFIX.hostingBackup,
  message: ID_PREFIX.ticketMessage,
  ticketdetail: ID_PREFIX.ticket,
  pooldetail: ID_PREFIX.pool,
  servertermination: ID_PREFIX.server,
  event: ID_PREFIX.event,
  session: ID_PREFIX.hostingSshSession,
  accountsession: ID_PREFIX.dashboardSession,
};

/** Examples by the name of a value, where its name says more than its type. */
const BY_NAME: Record<string, unknown> = {
  label: 'web-1',
  name: 'before-upgrade',
  subject: 'Cannot reach my server',
  body: 'Thanks, it works again.',
  message: 'My server does not answer on port 443 since 09:00 UTC.',
  description: 'Nightly build server',
  email: 'ada@example.com',
  country: 'DE',
  domain: 'example.com',
  hostname: 'mail.example.com',
  ptr: 'mail.example.com',
  ip: '203.0.113.10',
  address: '203.0.113.10',
  os: 'linux',
  osTemplate: 'ubuntu-24.04',
  productId: 'std-1c-2g-50',
  addonId: 'addon-ipv4-1',
  type: 'ipv4',
  url: 'https://hooks.example.com/cloud',
  events: ['server.power.changed'],
  eventType: 'server.power.changed',
  cursor: 'srv_01jq8k2m4p6rab3c5d7e9f1g2h',
  resource: 'srv_01jq8k2m4p6rab3c5d7e9f1g2h',
  path: '/public_html/index.html',
  from: '/public_html/old.html',
  to: '/public_html/new.html',
  content: '<h1>Hello</h1>\n',
  suffix: 'shop',
  php_version: '8.3',
  repo_url: 'git@github.com:example/site.git',
  branch: 'main',
  subdir: 'public',
  basic_user: 'admin',
  password: 'correct-horse-battery',
  local_part: 'ada',
  source_local: 'sales',
  destination: 'ada@example.com',
  kind: 'access',
  period: '7d',
  department: 'technical',
  priority: 'normal',
  status: 'active',
  currency: 'USD',
  gateway: 'card',
  next: '/servers',
  schedule: '*/15 * * * *',
  command: 'php /home/site/cron.php',
  sha: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  number: 'INV-2026-000042',
  invoiceNumber: 'INV-2026-000042',
  fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEXAMPLEKEYFORDOCS deploy@example.com',
  secret: 'whsec_b7d0c4e5…',
  rootPassword: 'tR4-vq9L-x2Mp',
  user: 'site',
  username: 'site',
  webRoot: '/public_html',
  mysqlHost: 'localhost',
  host: 'mail.example.net',
  action: 'reboot',
  reason: 'Unpaid invoice INV-2026-000042',
  nameservers: ['ns1.example.net', 'ns2.example.net'],
  lines: ['203.0.113.7 - - [14/Mar/2026:09:30:00 +0000] "GET / HTTP/1.1" 200 512'],
  header: 'MAILTO=ada@example.com',
  error: 'connect ECONNREFUSED',
  lastError: 'HTTP 503',
  token: 'sshs_Xk3v9QmB2rT7yL0pW5nZ8cD1fG4hJ6sA',
  webmail_url: 'https://webmail.example.net',
  customDomain: 'shop.example.com',
  unit: 'vcpu',
  family: 'std',
  apiVersion: API_REVISION,
  created: AT,
  account: ACCOUNT_ID,
  suspendReason: 'Unpaid invoice INV-2026-000042',
  stock_note: 'Temporarily out of stock: the datacenter is waiting for new address space.',
  ips: ['203.0.113.10', '203.0.113.11'],
  releasedIps: ['203.0.113.11'],
  assignedTo: `srv_${ID_TAIL}`,
  reference: `srv_${ID_TAIL}`,
  paidWith: 'wallet',
  author: 'customer',
  permissions: '0644',
  homeDirectory: '/',
  databasePrefix: 'u5d7e9f1g2h_',
  databases: ['u5d7e9f1g2h_shop'],
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  domains: ['example.com', 'www.example.com'],
  availableVersions: ['8.1', '8.2', '8.3'],
  mx_host: 'mail.example.com',
  mail_ip: '203.0.113.25',
  sshKeyIds: [`ssh_${ID_TAIL}`],
  invoiceEmail: 'billing@example.com',
  invoice_email: 'billing@example.com',
  public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPsubplDBCJjOQeAEldzWUJzOdLRNTluZioBNqFp6o++',
  clientAddress: '198.51.100.7',
  client_address: '198.51.100.7',
  currentPassword: 'correct horse battery staple',
  current_password: 'correct horse battery staple',
  newPassword: 'a longer passphrase of mine',
  new_password: 'a longer passphrase of mine',
};

/** A number within declared bounds: cents look like money, everything else a small count. */
function numberExample(name: string, r: InputKeywords | undefined, integer: boolean): number {
  let n = /cents$/i.test(name)
    ? 1500
    : /statusCode$/i.test(name)
      ? 200
      : /bytes$/i.test(name)
        ? 1_048_576
        : /Mb$|_mb$/.test(name)
          ? 1024
          : /port$/i.test(name)
            ? 22
            : integer
              ? 1
              : 0.5;
  if (r?.minimum !== undefined) n = Math.max(n, r.minimum);
  if (r?.maximum !== undefined) n = Math.min(n, r.maximum);
  return n;
}

const NOUNS_LONGEST_FIRST = Object.keys(ID_NOUNS).sort((a, b) => b.length - a.length);

/** `srv_…` for a server's id: the noun is the name (`serverId`), or the type or path segment holding an `id`. */
function idExample(name: string, parent?: string): string {
  // A name that is itself a noun (`bid`, a backup's) before the `Id` suffix is cut off.
  const noun = (
    name === 'id' ? (parent ?? '') : ID_NOUNS[name.toLowerCase()] ? name : name.replace(/_?[iI]d$/, '')
  ).toLowerCase();
  if (noun === 'account') return ACCOUNT_ID;
  const known = ID_NOUNS[noun]
    ? noun
    : (NOUNS_LONGEST_FIRST.find((n) => noun.startsWith(n)) ?? NOUNS_LONGEST_FIRST.find((n) => noun.endsWith(n)));
  return `${known ? ID_NOUNS[known] : 'id'}_${ID_TAIL}`;
}

/** The example of a value named `name` (in `parent`, a type name) of `type`, under declared rules. */
export function exampleOf(
  type: GraphQLType,
  name: string,
  opts: { parent?: string; rules?: InputKeywords; declared?: unknown; depth?: number } = {},
): unknown {
  if (opts.declared !== undefined) return opts.declared;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (Array.isArray(BY_NAME[name]) && isScalarType(getNamedType(inner))) return BY_NAME[name];
    const item = exampleOf(inner.ofType, name, { ...opts, rules: opts.rules?.items });
    return Array.from({ length: Math.max(1, opts.rules?.minItems ?? 1) }, (_, i) =>
      typeof item === 'string' && i > 0 ? `${item.replace(/^ns1/, 'ns2')}${i > 1 ? i : ''}` : item,
    );
  }
  const r = opts.rules;
  if (isEnumType(inner)) return inner.getValues()[0].name;
  if (isInputObjectType(inner) || isObjectType(inner) || isInterfaceType(inner))
    return objectExample(inner, (opts.depth ?? 0) + 1);
  if (r?.enum)
    return BY_NAME[name] !== undefined && r.enum.includes(BY_NAME[name] as string) ? BY_NAME[name] : r.enum[0];
  if (r?.format === 'email') return 'ada@example.com';
  if (r?.dnsName === 'host') return 'ns1.example.net';
  if (r?.dnsName === 'domain')
    return typeof BY_NAME[name] === 'string' && String(BY_NAME[name]).includes('.') ? BY_NAME[name] : 'example.com';
  switch (inner.name) {
    case 'ID':
      return typeof BY_NAME[name] === 'string' && name !== 'id' ? BY_NAME[name] : idExample(name, opts.parent);
    case 'Int':
      return name === 'id' || /_id$/.test(name) ? 42 : numberExample(name, r, true);
    case 'Float':
      return numberExample(name, r, false);
    case 'Boolean':
      return true;
    case 'DateTime':
      return AT;
    case 'JSON':
      return { serverId: idExample('serverId'), action: 'reboot' };
  }
  const byName = BY_NAME[name];
  if (typeof byName === 'string' && (!r?.maxLength || byName.length <= r.maxLength)) return byName;
  if (/At$|_at$/.test(name)) return AT;
  if (/(^|[a-z])Id$|_id$/.test(name)) return idExample(name);
  // No placeholder: a value the reference cannot show teaches nothing (issue #20).
  throw new Error(
    `No example for the string ${opts.parent ? `${opts.parent}.` : ''}${name}: add it to BY_NAME in src/schema/examples.ts, or declare example(...) on the field.`,
  );
}

function declaredExample(f: { extensions?: Record<string, unknown> | null }): unknown {
  return (f.extensions as { example?: unknown } | null | undefined)?.example;
}

/** The example of an argument or input field. */
export function inputExample(arg: GraphQLArgument | GraphQLInputField, parent?: string): unknown {
  const declared = schemaOf(arg);
  return exampleOf(arg.type, arg.name, {
    parent,
    rules: declared && keywordsOf(declared),
    declared: declaredExample(arg),
  });
}

/** The example of an output field of `parent`. */
export function fieldExample(field: GraphQLField<unknown, unknown>, parent: ObjectLike, depth = 0): unknown {
  const declared = declaredExample(field) ?? (field.name === 'nextCursor' ? cursorExample(parent) : undefined);
  return exampleOf(field.type, field.name, { parent: parent.name, declared, depth });
}

type ObjectLike = GraphQLObjectType | GraphQLInterfaceType;

/**
 * A list envelope's `nextCursor` is the id of its last item as text (src/core/paging.ts);
 * null for a list whose items have no id (those are always answered whole).
 */
function cursorExample(envelope: ObjectLike): string | null | undefined {
  const data = envelope.getFields().data;
  if (!data) return undefined;
  const item = getNamedType(data.type);
  const id = isObjectType(item) ? item.getFields().id : undefined;
  return id ? String(exampleOf(id.type, 'id', { parent: item.name })) : null;
}

const MAX_DEPTH = 6;

function objectExample(type: ObjectLike | GraphQLInputObjectType, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > MAX_DEPTH) return out;
  for (const field of Object.values(type.getFields())) {
    out[field.name] = isInputObjectType(type)
      ? inputExample(field as GraphQLInputField, type.name)
      : fieldExample(field as GraphQLField<unknown, unknown>, type, depth);
  }
  return out;
}

/**
 * The example of an operation's arguments by name (body or parameters pick theirs). An `id`
 * in the path names the resource of the segment before it (`/servers/:id`: a server's).
 */
export function argumentsExample(field: GraphQLField<unknown, unknown>, path: string): Record<string, unknown> {
  const segments = path.split('/');
  const holder = (name: string) => segments[segments.indexOf(`:${name}`) - 1]?.replace(/ies$/, 'y').replace(/s$/, '');
  return Object.fromEntries(field.args.map((a) => [a.name, inputExample(a, holder(a.name))]));
}
