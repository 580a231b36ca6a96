import { print, type ExecutionResult } from 'graphql';
import { anchorDatabase, anchorHandler } from './anchor.ts';
import { dataLayerHandler } from './data-layer.ts';
import { benchCustomer, load, loadServers, mountBeside, slicedLoad, startBenchApp, type SlicedRequest } from './lib.ts';
import { loadOtherLists } from './read-fixture.ts';
import { stageTimes } from './stage-times.ts';
import type { Figure, Sizes } from './scenarios.ts';
import { serviceHostname } from '../src/modules/hosting/service.ts';
import { listOperations } from '../src/schema/operation.ts';
import { restProjection, restProjections, restResult } from '../src/schema/rest-projection.ts';

const PREFIX = '/bench-anchor';
const DATA_PREFIX = '/bench-data';

/**
 * The budgets (issues 34 and 41): the API's share of the anchor's throughput, per database (the
 * 50-server page has its own on PostgreSQL), and GraphQL's and MCP's of REST's.
 */
const ANCHOR_BUDGET = { postgresql: 0.65, pglite: 0.85 } as const;
const ANCHOR_BUDGET_BY_READ: Partial<Record<string, Partial<Record<keyof typeof ANCHOR_BUDGET, number>>>> = {
  list: { postgresql: 0.75 },
};
const GRAPHQL_BUDGET = 0.9;

interface Read {
  /** The API's REST path; the anchor serves the same path under its prefix. */
  rest: string;
  /** The REST path with its ids as `:id`, naming the figures. */
  route: string;
  /** The GraphQL root field and its variables: the document is the one REST runs (every field). */
  field: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
  /** Also timed through bench/data-layer.ts: the same statement without the GraphQL machinery. */
  dataLayer?: true;
}

/**
 * Scenario 8: the read path against its anchor (bench/anchor.ts), per read: GET /v1/servers
 * (an account with 50 servers, each with 2 IPs, 2 snapshots and an add-on) and
 * GET /v1/servers/:id; on a second account (bench/read-fixture.ts) the other nested lists of
 * the issue: invoices with their lines, tickets and one ticket with its thread, a
 * subscription's delivery log with attempts, pools and one pool with its usage and servers,
 * hosting accounts. Before anything is timed, every body of the API (REST and GraphQL) must
 * equal the anchor's as parsed JSON, or the run fails. Then one time-sliced run
 * (`slicedLoad`) over anchor, REST and GraphQL of every read, so all share the server, the
 * database and the moment. The two server reads are also timed through the data layer alone
 * (bench/data-layer.ts), which splits the gap to the anchor into the database side and the
 * GraphQL machinery's.
 */
export async function readPath(sizes: Sizes): Promise<{ figures: Figure[]; compared: string[] }> {
  const app = await startBenchApp();
  const database = app.running.app.db.kind;
  const anchorDb = anchorDatabase(app.running.app);
  const site = {
    now: () => app.running.app.clock.now(),
    hostingSuffix: serviceHostname(app.running.app.config.publicBaseUrl, ''),
    database,
  };
  const unmountAnchor = mountBeside(app.running.server, PREFIX, anchorHandler(anchorDb.run, PREFIX, site));
  const unmountData = mountBeside(app.running.server, DATA_PREFIX, dataLayerHandler(app.running.app, DATA_PREFIX));
  try {
    const c = await benchCustomer(app);
    await loadServers(app, c.accountId, 50, { nested: true, snapshots: 2 });
    const auth = { Authorization: `Bearer ${c.key}` };
    const first = (await (await fetch(`${app.url}/v1/servers?limit=1`, { headers: auth })).json()) as {
      data: { id: string }[];
    };
    const id = first.data[0].id;
    const other = await benchCustomer(app);
    const lists = await loadOtherLists(app, other);
    const otherAuth = { Authorization: `Bearer ${other.key}` };
    const all: Record<string, Read> = {
      list: {
        rest: '/v1/servers?limit=50',
        route: '/v1/servers',
        field: 'servers',
        variables: { limit: 50 },
        headers: auth,
        dataLayer: true,
      },
      detail: {
        rest: `/v1/servers/${id}`,
        route: '/v1/servers/:id',
        field: 'server',
        variables: { id },
        headers: auth,
        dataLayer: true,
      },
      invoices: {
        rest: '/v1/billing/invoices?page=1&limit=20',
        route: '/v1/billing/invoices',
        field: 'invoices',
        variables: { page: 1, limit: 20 },
        headers: otherAuth,
      },
      tickets: {
        rest: '/v1/tickets?limit=50',
        route: '/v1/tickets',
        field: 'tickets',
        variables: { limit: 50 },
        headers: otherAuth,
      },
      ticket: {
        rest: `/v1/tickets/${lists.ticketId}`,
        route: '/v1/tickets/:id',
        field: 'ticket',
        variables: { id: lists.ticketId },
        headers: otherAuth,
      },
      deliveries: {
        rest: `/v1/webhooks/${lists.webhookId}/deliveries?limit=20`,
        route: '/v1/webhooks/:id/deliveries',
        field: 'webhookDeliveries',
        variables: { id: lists.webhookId, limit: 20 },
        headers: otherAuth,
      },
      pools: {
        rest: '/v1/pools?limit=50',
        route: '/v1/pools',
        field: 'pools',
        variables: { limit: 50 },
        headers: otherAuth,
      },
      pool: {
        rest: `/v1/pools/${lists.poolId}`,
        route: '/v1/pools/:id',
        field: 'pool',
        variables: { id: lists.poolId },
        headers: otherAuth,
      },
      hosting: {
        rest: '/v1/hosting?limit=50',
        route: '/v1/hosting',
        field: 'hostingAccounts',
        variables: { limit: 50 },
        headers: otherAuth,
      },
    };
    // BENCH_READS=list,detail times those reads alone (a shorter run while working on them).
    const only = process.env.BENCH_READS?.split(',').map((n) => n.trim());
    const unknown = only?.filter((n) => !(n in all));
    if (unknown?.length)
      throw new Error(`BENCH_READS: no read ${unknown.join(', ')} (reads: ${Object.keys(all).join(', ')}).`);
    const reads = only ? Object.fromEntries(only.map((n) => [n, all[n]])) : all;
    // Each read's REST projection: the same selection REST answers, run over /graphql.
    const schema = app.running.app.schema;
    const targets: Record<string, SlicedRequest> = {};
    const compared: string[] = [];
    const projections = await restProjections(schema);
    for (const [name, read] of Object.entries(reads)) {
      const projection = restProjection(projections, { kind: 'query', name: read.field });
      const graphql: SlicedRequest = {
        path: '/graphql',
        method: 'POST',
        headers: { ...read.headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: print(projection.document), variables: read.variables }),
      };
      targets[`${name} anchor`] = { path: PREFIX + read.rest.slice('/v1'.length), headers: read.headers };
      targets[`${name} REST`] = { path: read.rest, headers: read.headers };
      targets[`${name} GraphQL`] = graphql;
      // The same read as an MCP client makes it: one stateless tools/call of the operation's tool.
      const tool = listOperations(schema).find((op) => op.kind === 'query' && op.name === read.field)?.meta.tool;
      const mcp: SlicedRequest = {
        path: '/mcp',
        method: 'POST',
        headers: { ...read.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool, arguments: read.variables },
        }),
      };
      targets[`${name} MCP`] = mcp;
      const anchorBody = await bodyOf(app.url, targets[`${name} anchor`]);
      const restBody = await bodyOf(app.url, targets[`${name} REST`]);
      // A list's connection read as REST's envelope (the projection's flattening), to compare.
      const graphqlBody = restResult(projection, (await bodyOf(app.url, graphql)) as ExecutionResult).data?.[
        read.field
      ];
      sameJson(`${read.rest} (REST) and the anchor`, restBody, anchorBody);
      sameJson(`${read.field} (GraphQL) and the anchor`, graphqlBody, anchorBody);
      const mcpBody = (await bodyOf(app.url, mcp)) as { result?: { content?: { text: string }[] } };
      const mcpText = mcpBody.result?.content?.[0]?.text;
      if (!mcpText) throw new Error(`${tool} (MCP): no result ${JSON.stringify(mcpBody).slice(0, 300)}`);
      sameJson(`${tool} (MCP) and the anchor`, JSON.parse(mcpText), anchorBody);
      if (read.dataLayer) {
        targets[`${name} data layer`] = { path: DATA_PREFIX + read.rest.slice('/v1'.length), headers: read.headers };
        sameJson(
          `${read.rest} (data layer) and the anchor`,
          await bodyOf(app.url, targets[`${name} data layer`]),
          anchorBody,
        );
      }
      compared.push(read.rest);
    }

    const names = Object.keys(targets);
    if (sizes.warmUp)
      for (const name of names)
        await load({
          url: app.url + targets[name].path,
          ...targets[name],
          seconds: Math.max(1, Math.round(sizes.seconds * 0.2)),
        });
    const seconds = sizes.seconds * 3;
    // slicedLoad runs nine rounds of every state at least: at tiny size the slices are short, so 27 states take seconds.
    const rps = await slicedLoad({
      url: app.url,
      states: names,
      seconds,
      sliceMs: Math.min(500, (seconds * 1000) / names.length / 2),
      request: (name) => targets[name],
    });
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(`sliced: ${names.map((n) => `${n} ${rps[n].toFixed(1)} req/s`).join(', ')}\n`);

    const figures: Figure[] = [];
    for (const [name, read] of Object.entries(reads)) {
      const budget = ANCHOR_BUDGET_BY_READ[name]?.[database] ?? ANCHOR_BUDGET[database];
      const scenario = `8 read path ${name}`;
      const [anchor, rest, graphql, mcp] = [
        rps[`${name} anchor`],
        rps[`${name} REST`],
        rps[`${name} GraphQL`],
        rps[`${name} MCP`],
      ];
      figures.push({
        scenario,
        metric: `anchor (one statement) ${read.route.slice('/v1'.length)}`,
        value: anchor,
        unit: 'req/s',
      });
      figures.push({ scenario, metric: `REST ${read.route}`, value: rest, unit: 'req/s' });
      figures.push({ scenario, metric: `GraphQL ${read.field}`, value: graphql, unit: 'req/s' });
      figures.push({
        scenario,
        metric: `REST / anchor (${database})`,
        value: rest / anchor,
        unit: 'ratio',
        budget: `≥ ${budget}`,
        pass: rest / anchor >= budget,
      });
      figures.push({
        scenario,
        metric: 'GraphQL / REST',
        value: graphql / rest,
        unit: 'ratio',
        budget: `≥ ${GRAPHQL_BUDGET}`,
        pass: graphql / rest >= GRAPHQL_BUDGET,
      });
      figures.push({ scenario, metric: `MCP tools/call`, value: mcp, unit: 'req/s' });
      figures.push({
        scenario,
        metric: 'MCP / REST',
        value: mcp / rest,
        unit: 'ratio',
        budget: `≥ ${GRAPHQL_BUDGET}`,
        pass: mcp / rest >= GRAPHQL_BUDGET,
      });
      if (!read.dataLayer) continue;
      // Informational: how far the data layer alone is from the anchor, and what the GraphQL machinery leaves of it.
      const data = rps[`${name} data layer`];
      figures.push({ scenario, metric: 'data layer, no GraphQL (bench/data-layer.ts)', value: data, unit: 'req/s' });
      figures.push({ scenario, metric: 'data layer / anchor', value: data / anchor, unit: 'ratio' });
      figures.push({ scenario, metric: 'REST / data layer', value: rest / data, unit: 'ratio' });
    }
    // Where a request's time goes, stage by stage (the reads the data layer also times).
    for (const [name, read] of Object.entries(reads)) {
      if (!read.dataLayer) continue;
      const requests = sizes.warmUp ? 300 : 5;
      for (const surface of ['REST', 'GraphQL'] as const)
        figures.push(
          ...(await stageTimes(
            app.url,
            app.running.app.adminToken,
            `8 read path ${name}`,
            `${surface} stages`,
            targets[`${name} ${surface}`],
            requests,
          )),
        );
    }
    return { figures, compared };
  } finally {
    unmountData();
    unmountAnchor();
    await anchorDb.close();
    await app.stop();
  }
}

async function bodyOf(base: string, r: SlicedRequest): Promise<unknown> {
  const res = await fetch(base + r.path, { method: r.method ?? 'GET', headers: r.headers, body: r.body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${r.method ?? 'GET'} ${r.path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Fails the run when two bodies differ as parsed JSON, naming the first difference. */
function sameJson(what: string, actual: unknown, expected: unknown, at = '$'): void {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (actual.length !== expected.length)
      throw new Error(`${what} differ at ${at}: ${actual.length} items, not ${expected.length}`);
    expected.forEach((e, i) => {
      sameJson(what, actual[i], e, `${at}[${i}]`);
    });
    return;
  }
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object') {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const k of keys)
      sameJson(what, (actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${at}.${k}`);
    return;
  }
  if (actual !== expected)
    throw new Error(`${what} differ at ${at}: ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`);
}
