import { POOL_UNITS } from '../src/modules/catalogue/service.ts';
import { UNIT_SIZES } from '../src/modules/pools/service.ts';

// The anchor's SQL (bench/anchor.ts): each read's response body built as JSON in the database.

/** A timestamptz as the API writes it (`Date#toISOString`): UTC, milliseconds, `Z`. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `json_build_object` from a map of JSON keys to SQL expressions. */
export const obj = (fields: Record<string, string>) =>
  `json_build_object(${Object.entries(fields)
    .map(([k, v]) => `'${k}', ${v}`)
    .join(', ')})`;
/** A JSON array of `item` over `from` (a FROM … WHERE … tail), `[]` when empty. */
const arr = (item: string, from: string, orderBy: string) =>
  `COALESCE((SELECT json_agg(${item} ORDER BY ${orderBy}) FROM ${from}), '[]'::json)`;

/** The relations of a server row `s`, each as an item, its rows (a FROM … WHERE tail on the alias, without the server) and order. */
const serverRelations = {
  ips: {
    item: obj({
      ip: 'i.address',
      version: 'i.version',
      ptr: 'i.ptr',
      zoneHosted: 'i."zoneHosted"',
      primary: 'i."isPrimary"',
    }),
    from: `"ServerIp" i WHERE`,
    orderBy: 'i."isPrimary" DESC, i.address',
    server: 'i."serverId"',
  },
  snapshots: {
    item: obj({
      id: 'n.id',
      serverId: 'n."serverId"',
      name: 'n.name',
      description: 'n.description',
      status: 'n.status',
      sizeGb: 'n."sizeGb"',
      createdAt: iso('n."createdAt"'),
    }),
    from: `"Snapshot" n WHERE`,
    orderBy: 'n.id DESC',
    server: 'n."serverId"',
  },
  addons: {
    item: obj({
      id: 'a.id',
      addonId: 'a."productId"',
      type: 'a.type',
      monthlyUsdCents: 'a."monthlyUsdCents"',
      attachedAt: iso('a."createdAt"'),
    }),
    from: `"ServerAddon" a WHERE a."endedAt" IS NULL AND`,
    orderBy: 'a.id',
    server: 'a."serverId"',
  },
};
type ServerRelation = keyof typeof serverRelations;
const SERVER_RELATIONS = Object.keys(serverRelations) as ServerRelation[];

/** A server `s` as the API answers it, each relation's JSON array given by `relation`. */
const serverObject = (relation: (name: ServerRelation) => string) =>
  obj({
    id: 's.id',
    label: 's.label',
    status: 's.status',
    productId: 's."productId"',
    vcpu: 's.vcpu',
    ramMb: 's."ramMb"',
    diskGb: 's."diskGb"',
    os: 's.os',
    osTemplate: 's."osTemplate"',
    suspendReason: 's."suspendReason"',
    poolId: 's."poolId"',
    renewsAt: iso('s."paidUntil"'),
    ips: relation('ips'),
    snapshots: relation('snapshots'),
    addons: relation('addons'),
    sshKeys: 's."sshKeys"',
    createdAt: iso('s."createdAt"'),
    provisionedAt: iso('s."provisionedAt"'),
  });

/** A server with each relation a subquery on it. */
export const serverWithSubqueries = serverObject((name) => {
  const { item, from, orderBy, server } = serverRelations[name];
  return arr(item, `${from} ${server} = s.id`, orderBy);
});

/**
 * A page of servers with each relation aggregated once for the page's servers and joined to
 * them, rather than a subquery per server and relation (src/modules/servers/server-reads.ts
 * reads the API's page this way).
 */
export const serverPageJoins = SERVER_RELATIONS.map((name) => `LEFT JOIN ${name} ON ${name}.id = s.id`).join(' ');
export const serverPageRelations = SERVER_RELATIONS.map((name) => {
  const { item, from, orderBy, server } = serverRelations[name];
  return `${name} AS MATERIALIZED (SELECT ${server} AS id, json_agg(${item} ORDER BY ${orderBy}) AS items FROM ${from} ${server} = ANY(ARRAY(SELECT id FROM s)) GROUP BY ${server})`;
}).join(', ');
export const pageServer = serverObject((name) => `COALESCE(${name}.items, '[]'::json)`);

/**
 * A keyset page as the API answers it (`{data, hasMore, nextCursor}`, newest first): `rows` is
 * a SELECT of the list's rows aliased `alias` with `$1` the account, `$2` the limit, `$3` the
 * cursor; `outer` a FROM clause the answer needs a row of (none: a 404); `joined`, tables
 * computed from the page's rows (CTEs on it) that each row's `item` reads, joined to it.
 */
export const page = (
  alias: string,
  item: string,
  rows: string,
  outer = '',
  joined?: { ctes: string; joins: string },
) => `
  WITH more AS (${rows} AND ($3::text IS NULL OR ${alias}.id < $3::text) ORDER BY ${alias}.id DESC LIMIT $2::int + 1),
       ${alias} AS (SELECT * FROM more ORDER BY id DESC LIMIT $2::int)${joined ? `, ${joined.ctes}` : ''}
  SELECT ${obj({
    data: `COALESCE((SELECT json_agg(${item} ORDER BY ${alias}.id DESC) FROM ${alias} ${joined?.joins ?? ''}), '[]'::json)`,
    hasMore: '(SELECT count(*) FROM more) > $2::int',
    nextCursor: `CASE WHEN (SELECT count(*) FROM more) > $2::int THEN (SELECT min(id) FROM ${alias}) END`,
  })}::text AS body ${outer}`;

// ---------------------------------------------------------------- invoices, tickets, deliveries

const invoiceObject = obj({
  id: 'v.id',
  number: 'v.number',
  status: 'v.status',
  source: 'v.source',
  currency: 'v.currency',
  totalUsdCents: 'v."totalUsdCents"',
  reference: 'v.reference',
  items: arr(
    obj({
      description: 'it.description',
      amountUsdCents: 'it."amountUsdCents"',
      periodStart: iso('it."periodStart"'),
      periodEnd: iso('it."periodEnd"'),
    }),
    `"InvoiceItem" it WHERE it."invoiceId" = v.id`,
    'it.position',
  ),
  dueAt: iso('v."dueAt"'),
  paidAt: iso('v."paidAt"'),
  paidWith: 'v."paidWith"',
  createdAt: iso('v."createdAt"'),
});

/** The invoice list is numbered pages (`{data, page, limit, total, hasMore}`): `$2` the limit, `$3` the page. */
export const invoicePage = `
  WITH n AS (SELECT count(*) AS total FROM "Invoice" WHERE "accountId" = $1::uuid),
       v AS (SELECT * FROM "Invoice" v WHERE v."accountId" = $1::uuid ORDER BY v."createdAt" DESC, v.number DESC OFFSET ($3::int - 1) * $2::int LIMIT $2::int)
  SELECT ${obj({
    data: `COALESCE((SELECT json_agg(${invoiceObject} ORDER BY v."createdAt" DESC, v.number DESC) FROM v), '[]'::json)`,
    page: '$3::int',
    limit: '$2::int',
    total: 'n.total',
    hasMore: '$3::int * $2::int < n.total',
  })}::text AS body FROM n`;

export const ticketFields = {
  id: 't.id',
  number: 't.number',
  subject: 't.subject',
  department: 't.department',
  priority: 't.priority',
  status: 't.status',
  lastReplyAt: iso('t."lastReplyAt"'),
  closedAt: iso('t."closedAt"'),
  createdAt: iso('t."createdAt"'),
};
export const ticketThread = obj({
  ...ticketFields,
  messages: arr(
    obj({ id: 'm.id', author: 'm.author', body: 'm.body', createdAt: iso('m."createdAt"') }),
    `"TicketMessage" m WHERE m."ticketId" = t.id`,
    'm.id',
  ),
});

export const deliveryObject = obj({
  id: 'd.id',
  webhookId: 'd."webhookId"',
  eventId: 'd."eventId"',
  eventType: 'd."eventType"',
  status: 'd.status',
  attemptCount: 'd."attemptCount"',
  maxAttempts: 'd."maxAttempts"',
  nextAttemptAt: iso('d."nextAttemptAt"'),
  lastStatusCode: 'd."lastStatusCode"',
  lastError: 'd."lastError"',
  lastAttemptAt: iso('d."lastAttemptAt"'),
  createdAt: iso('d."createdAt"'),
  attempts: arr(
    obj({
      number: 'a.number',
      startedAt: iso('a."startedAt"'),
      durationMs: 'a."durationMs"',
      statusCode: 'a."statusCode"',
      error: 'a.error',
      succeeded: 'a.succeeded',
      manual: 'a.manual',
    }),
    `"WebhookDeliveryAttempt" a WHERE a."deliveryId" = d.id`,
    'a.number',
  ),
});

// ---------------------------------------------------------------- pools, hosting

/** `{vcpu, ram2gb, disk100, ip16}` with each unit's value from `value(unit)`. */
const units = (value: (unit: string) => string) => obj(Object.fromEntries(POOL_UNITS.map((u) => [u, value(u)])));
/** Servers of pool `p` as the pools service counts them: the account's, not terminated. */
const poolServers = `"Server" v WHERE v."accountId" = $1::uuid AND v."poolId" = p.id AND v.status <> 'terminated'`;

export const poolFields = {
  id: 'p.id',
  productId: 'p."productId"',
  label: 'p.label',
  status: 'p.status',
  vcpu: 'p.vcpu',
  ram2gb: 'p.ram2gb',
  disk100: 'p.disk100',
  ip16: 'p.ip16',
  quota: obj({
    vcpu: `p.vcpu * ${UNIT_SIZES.vcpu}`,
    ramMb: `p.ram2gb * ${UNIT_SIZES.ram2gb}`,
    diskGb: `p.disk100 * ${UNIT_SIZES.disk100}`,
    ips: `p.ip16 * ${UNIT_SIZES.ip16}`,
  }),
  rates_cents: units((u) => `(p."ratesCents"->>'${u}')::int`),
  monthlyUsdCents: 'p."monthlyUsdCents"',
  renewsAt: iso('p."paidUntil"'),
  createdAt: iso('p."createdAt"'),
};
export const poolDetail = obj({
  ...poolFields,
  usage: `(SELECT ${obj({
    vcpu: 'COALESCE(sum(v.vcpu), 0)',
    ramMb: 'COALESCE(sum(v."ramMb"), 0)',
    diskGb: 'COALESCE(sum(v."diskGb"), 0)',
    ips: `(SELECT count(*) FROM "ServerIp" i WHERE i."accountId" = $1::uuid AND i."poolId" = p.id AND i."serverId" IS NOT NULL)`,
    servers: 'count(*)',
  })} FROM ${poolServers})`,
  // The product's bounds, any product state (an existing pool's); null when it left the catalogue.
  bounds: `(SELECT ${units((u) => obj({ min: `(pr.details->'bounds'->'${u}'->>'min')::int`, max: `(pr.details->'bounds'->'${u}'->>'max')::int` }))} FROM "Product" pr WHERE pr.id = p."productId" AND pr.kind = 'pool')`,
  servers: arr(
    obj({
      id: 'v.id',
      label: 'v.label',
      status: 'v.status',
      productId: 'v."productId"',
      vcpu: 'v.vcpu',
      ramMb: 'v."ramMb"',
      diskGb: 'v."diskGb"',
      os: 'v.os',
      osTemplate: 'v."osTemplate"',
      ips: arr('i.address', `"ServerIp" i WHERE i."serverId" = v.id`, 'i.address'),
    }),
    poolServers,
    'v.id',
  ),
});

/** A hosting account; `$4` is what follows the username in the service hostname (`.hosting.<host>`). */
export const hostingObject = obj({
  id: 'h.id',
  domain: 'h.domain',
  status: 'h.status',
  productId: 'h."productId"',
  php_version: 'h."phpVersion"',
  ip: 'h.ip',
  customDomain: `CASE WHEN h."customDomain" <> '' THEN ${obj({ domain: 'h."customDomain"', status: `COALESCE(h."customDomainStatus", 'pending')`, attachedAt: iso('h."customDomainAttachedAt"') })} END`,
  certificate: obj({
    status: 'h."certStatus"',
    domains: 'h."certDomains"',
    issuedAt: iso('h."certIssuedAt"'),
    expiresAt: iso('h."certExpiresAt"'),
    error: 'h."certError"',
  }),
  connection: obj({
    host: 'h.username || $4::text',
    ip: 'h.ip',
    sftpPort: '22',
    username: 'h.username',
    homeDirectory: `'/'`,
    webRoot: `'/public_html'`,
    mysqlHost: `'localhost'`,
    mysqlPort: '3306',
    databasePrefix: `h.username || '_'`,
  }),
  createdAt: iso('h."createdAt"'),
  provisionedAt: iso('h."provisionedAt"'),
});
