import {
  getNamedType, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLType,
} from 'graphql';
import { ID_PREFIX } from '../db/ids.ts';
import { API_REVISION } from '../version.ts';
import { rulesOf, type InputRules } from './input-rules.ts';

/**
 * Examples of every argument, field and operation, derived once from what is declared: an
 * `example` in a field's or argument's extensions (`example(...)` below) wins; otherwise the
 * declared rules (one of, bounds, format), then the value's name (an id names its resource by
 * prefix, money ends in cents, times in At), then its type. The OpenAPI document prints them
 * as property, parameter, request and response examples; its lint checks each against its schema.
 */

/** Spread into a Pothos field's or argument's options when the derived example would say too little. */
export function example(value: unknown) {
  return { extensions: { example: value } };
}

const AT = '2026-03-14T09:30:00.000Z';
const ID_TAIL = '01jq8k2m4p6rab3c5d7e9f1g2h';

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
};

/** Examples by the name of a value, where its name says more than its type. */
const BY_NAME: Record<string, unknown> = {
  label: 'web-1', name: 'before-upgrade', subject: 'Cannot reach my server', body: 'Thanks, it works again.', message: 'My server does not answer on port 443 since 09:00 UTC.',
  description: 'Nightly build server', email: 'ada@example.com', country: 'DE', domain: 'example.com', hostname: 'mail.example.com', ptr: 'mail.example.com',
  ip: '203.0.113.10', address: '203.0.113.10', os: 'linux', osTemplate: 'ubuntu-24.04', productId: 'std-1c-2g-50', addonId: 'addon-ipv4-1', type: 'ipv4',
  url: 'https://hooks.example.com/cloud', events: ['server.power.changed'], eventType: 'server.power.changed', cursor: 'srv_01jq8k2m4p6rab3c5d7e9f1g2h',
  path: '/public_html/index.html', from: '/public_html/old.html', to: '/public_html/new.html', content: '<h1>Hello</h1>\n', suffix: 'shop', php_version: '8.3',
  repo_url: 'git@github.com:example/site.git', branch: 'main', subdir: 'public', basic_user: 'admin', password: 'correct-horse-battery', local_part: 'ada',
  source_local: 'sales', destination: 'ada@example.com', kind: 'access', period: '7d', department: 'technical', priority: 'normal', status: 'active',
  currency: 'USD', gateway: 'card', next: '/servers', schedule: '*/15 * * * *', command: 'php /home/site/cron.php', sha: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  commit: '9fceb02d0ae598e95dc970b74767f19372d61af8', number: 'INV-2026-0042', invoiceNumber: 'INV-2026-0042', fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEXAMPLEKEYFORDOCS deploy@example.com', secret: 'whsec_b7d0c4e5…', rootPassword: 'tR4-vq9L-x2Mp', user: 'site', username: 'site',
  webRoot: '/home/site/public_html', mysqlHost: 'mysql.example.net', host: 'mail.example.net', action: 'reboot', reason: 'Unpaid invoice INV-2026-0042',
  nameservers: ['ns1.example.net', 'ns2.example.net'], lines: ['203.0.113.7 - - [14/Mar/2026:09:30:00 +0000] "GET / HTTP/1.1" 200 512'], header: 'MAILTO=ada@example.com',
  ruleset: 'owasp-crs', mode: 'block', error: 'connect ECONNREFUSED', lastError: 'HTTP 503', token: 'hss_tok_…', webmail_url: 'https://webmail.example.net',
  customDomain: 'shop.example.com', unit: 'vcpu', family: 'std', apiVersion: API_REVISION, created: AT, account: 'acc_01jq8k2m4p6rab3c5d7e9f1g2h',
};

/** A number within declared bounds: cents look like money, everything else a small count. */
function numberExample(name: string, r: InputRules | undefined, integer: boolean): number {
  let n = /cents$/i.test(name) ? 1500 : /bytes$/i.test(name) ? 1_048_576 : /Mb$|_mb$/.test(name) ? 1024 : /port$/i.test(name) ? 22 : integer ? 1 : 0.5;
  if (r?.minimum !== undefined) n = Math.max(n, r.minimum);
  if (r?.maximum !== undefined) n = Math.min(n, r.maximum);
  return n;
}

const NOUNS_LONGEST_FIRST = Object.keys(ID_NOUNS).sort((a, b) => b.length - a.length);

/** `srv_…` for a server's id: the noun is the name (`serverId`), or the type or path segment holding an `id`. */
function idExample(name: string, parent?: string): string {
  const noun = (name === 'id' ? parent ?? '' : name.replace(/_?[iI]d$/, '')).toLowerCase();
  const known = ID_NOUNS[noun] ? noun : NOUNS_LONGEST_FIRST.find((n) => noun.startsWith(n)) ?? NOUNS_LONGEST_FIRST.find((n) => noun.endsWith(n));
  return `${known ? ID_NOUNS[known] : 'id'}_${ID_TAIL}`;
}

/** The example of a value named `name` (in `parent`, a type name) of `type`, under declared rules. */
export function exampleOf(type: GraphQLType, name: string, opts: { parent?: string; rules?: InputRules; declared?: unknown; depth?: number } = {}): unknown {
  if (opts.declared !== undefined) return opts.declared;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (Array.isArray(BY_NAME[name]) && isScalarType(getNamedType(inner))) return BY_NAME[name];
    const { minItems: _min, maxItems: _max, ...each } = opts.rules ?? {};
    const item = exampleOf(inner.ofType, name, { ...opts, rules: each });
    return Array.from({ length: Math.max(1, opts.rules?.minItems ?? 1) }, (_, i) => (typeof item === 'string' && i > 0 ? `${item.replace(/^ns1/, 'ns2')}${i > 1 ? i : ''}` : item));
  }
  const r = opts.rules;
  if (isEnumType(inner)) return inner.getValues()[0].name;
  if (isInputObjectType(inner) || isObjectType(inner) || isInterfaceType(inner)) return objectExample(inner, (opts.depth ?? 0) + 1);
  if (r?.oneOf) return BY_NAME[name] !== undefined && r.oneOf.includes(BY_NAME[name] as string) ? BY_NAME[name] : r.oneOf[0];
  if (r?.format === 'email') return 'ada@example.com';
  if (r?.format === 'host-name') return 'ns1.example.net';
  if (r?.format === 'dns-name') return typeof BY_NAME[name] === 'string' && String(BY_NAME[name]).includes('.') ? BY_NAME[name] : 'example.com';
  switch (inner.name) {
    case 'ID': return typeof BY_NAME[name] === 'string' && name !== 'id' ? BY_NAME[name] : idExample(name, opts.parent);
    case 'Int': return name === 'id' || /_id$/.test(name) ? 42 : numberExample(name, r, true);
    case 'Float': return numberExample(name, r, false);
    case 'Boolean': return true;
    case 'DateTime': return AT;
    case 'JSON': return { serverId: idExample('serverId'), action: 'reboot' };
  }
  const byName = BY_NAME[name];
  if (typeof byName === 'string' && (!r?.maxLength || byName.length <= r.maxLength)) return byName;
  if (/At$|_at$/.test(name)) return AT;
  if (/(^|[a-z])Id$|_id$/.test(name)) return idExample(name);
  return 'text';
}

function declaredExample(f: { extensions?: Record<string, unknown> | null }): unknown {
  return (f.extensions as { example?: unknown } | null | undefined)?.example;
}

/** The example of an argument or input field. */
export function inputExample(arg: GraphQLArgument | GraphQLInputField, parent?: string): unknown {
  return exampleOf(arg.type, arg.name, { parent, rules: rulesOf(arg), declared: declaredExample(arg) });
}

/** The example of an output field of `parent`. */
export function fieldExample(field: GraphQLField<unknown, unknown>, parent: string, depth = 0): unknown {
  return exampleOf(field.type, field.name, { parent, declared: declaredExample(field), depth });
}

const MAX_DEPTH = 6;

function objectExample(type: import('graphql').GraphQLObjectType | import('graphql').GraphQLInputObjectType | import('graphql').GraphQLInterfaceType, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > MAX_DEPTH) return out;
  for (const field of Object.values(type.getFields())) {
    out[field.name] = isInputObjectType(type)
      ? inputExample(field as GraphQLInputField, type.name)
      : fieldExample(field as GraphQLField<unknown, unknown>, type.name, depth);
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
