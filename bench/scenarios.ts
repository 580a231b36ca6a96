import { print } from 'graphql';
import { RateLimits, type RateLimitResult } from '../src/http/admission/rate-limit.ts';
import { benchCustomer, load, loadServers, mountBeside, slicedLoad, startBenchApp } from './lib.ts';
import { rawBaselineHandler } from './raw-baseline.ts';
import { restProjection, restProjections } from '../src/schema/rest-projection.ts';

export interface Sizes {
  /** Seconds per load run. */
  seconds: number;
  /** Scenario 3 account sizes. */
  nested: number[];
  /** Scenarios 1, 2 and 7: a warm-up of each target first when `warmUp`. */
  warmUp: boolean;
  /** Scenario 4: events and subscriptions; events/s for the latency run and its length in s. */
  webhookEvents: number;
  webhookSubscriptions: number;
  latencyRate: number;
  latencySeconds: number;
  /** Scenario 5. */
  subscribers: number;
  subscriberEvents: number;
  /** Scenario 6. */
  rssServers: number;
  /** Scenario 9: the flood's connections, each run's seconds, the credentials taken in turn. */
  overloadConnections: number;
  overloadSeconds: number;
  overloadKeys: number;
  /** Scenario 10: rounds of each change watched on the open page. */
  liveRounds: number;
}

export const FULL: Sizes = {
  seconds: 10,
  warmUp: true,
  nested: [10, 100, 1000],
  webhookEvents: 2000,
  webhookSubscriptions: 5,
  latencyRate: 200,
  latencySeconds: 5,
  subscribers: 500,
  subscriberEvents: 50,
  rssServers: 10_000,
  overloadConnections: 1000,
  overloadSeconds: 15,
  overloadKeys: 1000,
  liveRounds: 20,
};
export const TINY: Sizes = {
  seconds: 1,
  warmUp: false,
  nested: [2, 4],
  webhookEvents: 20,
  webhookSubscriptions: 2,
  latencyRate: 20,
  latencySeconds: 1,
  subscribers: 5,
  subscriberEvents: 3,
  rssServers: 200,
  overloadConnections: 50,
  overloadSeconds: 1,
  overloadKeys: 20,
  liveRounds: 2,
};

export interface Figure {
  scenario: string;
  metric: string;
  value: number;
  unit: string;
  budget?: string;
  pass?: boolean;
}

/** Scenarios 1, 2 and 7: GET /v1/servers (50 servers) through SOFA and POST /graphql against a raw node:http baseline. */
export async function restAndGraphql(
  sizes: Sizes,
): Promise<{ figures: Figure[]; sameJson: boolean; middlewareOff: boolean }> {
  const app = await startBenchApp();
  try {
    const figures: Figure[] = [];
    const c = await benchCustomer(app);
    await loadServers(app, c.accountId, 50, { nested: true });
    const unmount = mountBeside(app.running.server, '/bench-raw', rawBaselineHandler(app.running.app));
    const auth = { Authorization: `Bearer ${c.key}` };
    // The REST projection of GET /servers: the same data, the page as a connection.
    const query = print(
      restProjection(await restProjections(app.running.app.schema), { kind: 'query', name: 'servers' }).document,
    );
    const gqlBody = JSON.stringify({ query, variables: { limit: 50 } });
    const targets = {
      raw: { path: '/bench-raw/?limit=50', headers: auth },
      sofa: { path: '/v1/servers?limit=50', headers: auth },
      graphql: {
        path: '/graphql',
        method: 'POST' as const,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: gqlBody,
      },
    };

    const ask = (t: (typeof targets)[keyof typeof targets]) =>
      fetch(app.url + t.path, {
        method: 'method' in t ? t.method : 'GET',
        headers: t.headers,
        body: 'body' in t ? t.body : undefined,
      }).then((r) => r.json());
    const viaRest = await ask(targets.sofa);
    const viaRaw = await ask(targets.raw);
    const viaGql = await ask(targets.graphql);
    const sameJson =
      JSON.stringify(sortKeys(viaRest)) === JSON.stringify(sortKeys(viaRaw)) &&
      JSON.stringify(sortKeys(viaGql.data.servers.data)) === JSON.stringify(sortKeys(viaRaw.data));

    // Warm every path up (JIT, caches, pool connections) before anything is measured, then one
    // run that switches between the three every half second (`slicedLoad`): the raw handler is served
    // on the app's own HTTP server, so all three share the server, the connections and the
    // machine's moment. Runs seconds apart (the method before) moved these ratios by ±0.05.
    const names = Object.keys(targets) as (keyof typeof targets)[];
    if (sizes.warmUp)
      for (const name of names)
        await load({
          url: app.url + targets[name].path,
          ...targets[name],
          seconds: Math.max(1, Math.round(sizes.seconds * 0.3)),
        });
    // Scenario 7's "off": the app counts nothing (a limiter that always allows), set and unset on
    // the running app between slices; production code has no switch for it. Idempotency does
    // nothing on a GET beyond reading the header, so the figure is the rate limiter's.
    const running = app.running.app;
    const counting = running.limits;
    const unlimited = new Unlimited();
    const middleware = (on: boolean) => (running.limits = on ? counting : unlimited);
    // The premise: off, the unlimited limiter answers; on, the counting one does again.
    middleware(false);
    await fetch(app.url + targets.sofa.path, { headers: auth });
    const middlewareOff = unlimited.calls === 1;
    middleware(true);
    const middlewareOn =
      (await fetch(app.url + targets.sofa.path, { headers: auth })).headers.get('x-ratelimit-limit') ===
        String(running.config.requestsPerMinute) && unlimited.calls === 1;
    const sliceMs = (seconds: number) => Math.min(500, (seconds * 1000) / 16);
    const rps = await slicedLoad({
      url: app.url,
      states: names,
      seconds: sizes.seconds * 3,
      sliceMs: sliceMs(sizes.seconds * 3),
      request: (name) => targets[name],
    });
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(`sliced: ${names.map((n) => `${n} ${rps[n].toFixed(1)} req/s`).join(', ')}\n`);
    const sofaRatio = rps.sofa / rps.raw;
    const gqlRatio = rps.graphql / rps.raw;
    figures.push({ scenario: '1 REST vs raw', metric: 'raw node:http throughput', value: rps.raw, unit: 'req/s' });
    figures.push({ scenario: '1 REST vs raw', metric: 'SOFA throughput', value: rps.sofa, unit: 'req/s' });
    figures.push({
      scenario: '1 REST vs raw',
      metric: 'SOFA / raw',
      value: sofaRatio,
      unit: 'ratio',
      budget: '≥ 0.8',
      pass: sofaRatio >= 0.8,
    });
    const fixed = await load({
      url: `${app.url}/v1/servers?limit=50`,
      headers: auth,
      seconds: sizes.seconds,
      rate: 1000,
      connections: 50,
    });
    figures.push({
      scenario: '1 REST vs raw',
      metric: 'throughput offered 1,000 req/s',
      value: fixed.rps,
      unit: 'req/s',
    });
    figures.push({
      scenario: '1 REST vs raw',
      metric: 'p99 at 1,000 req/s offered',
      value: fixed.p99,
      unit: 'ms',
      budget: '≤ 20',
      pass: fixed.p99 <= 20,
    });
    figures.push({
      scenario: '2 GraphQL vs raw',
      metric: 'POST /graphql throughput',
      value: rps.graphql,
      unit: 'req/s',
    });
    figures.push({
      scenario: '2 GraphQL vs raw',
      metric: 'GraphQL / raw',
      value: gqlRatio,
      unit: 'ratio',
      budget: '≥ 0.8',
      pass: gqlRatio >= 0.8,
    });
    // Scenario 7: the same path with the middleware switched on and off every half second.
    const seconds7 = Math.max(2, sizes.seconds * 2);
    const sliced = await slicedLoad({
      url: app.url,
      states: ['on', 'off'] as const,
      seconds: seconds7,
      sliceMs: sliceMs(seconds7),
      enter: (state) => middleware(state === 'on'),
      request: () => targets.sofa,
    }).finally(() => middleware(true));
    const overhead = 1 - sliced.on / sliced.off;
    figures.push({
      scenario: '7 middleware overhead',
      metric: 'SOFA with rate limit and idempotency',
      value: sliced.on,
      unit: 'req/s',
    });
    figures.push({ scenario: '7 middleware overhead', metric: 'SOFA without them', value: sliced.off, unit: 'req/s' });
    figures.push({
      scenario: '7 middleware overhead',
      metric: 'rate limit + idempotency cost',
      value: overhead * 100,
      unit: '%',
      budget: '≤ 5',
      pass: overhead <= 0.05,
    });
    unmount();
    return { figures, sameJson, middlewareOff: middlewareOff && middlewareOn };
  } finally {
    await app.stop();
  }
}

/** A limiter that counts nothing and always allows: scenario 7's "without the rate limiter". */
class Unlimited extends RateLimits {
  /** Requests admitted (each one spends the credential's and the account's budget at once). */
  calls = 0;
  override async consumeRequest(): Promise<RateLimitResult> {
    this.calls++;
    return this.consume();
  }
  override async consume(): Promise<RateLimitResult> {
    return { allowed: true, limit: 0, remaining: 0, resetAt: 0, retryAfter: 0 };
  }
}

/** Scenario 3: servers → ips, snapshots, add-ons in one GraphQL query; SQL statements counted at the driver. */
export async function nestedQuery(sizes: Sizes): Promise<Figure[]> {
  const app = await startBenchApp();
  try {
    const figures: Figure[] = [];
    const query = `query($limit: Int) { servers(first: $limit) { nodes { id label ips { ip ptr } snapshots { id name } addons { id addonId } } } }`;
    const counts: number[] = [];
    const perRow: number[] = [];
    for (const n of sizes.nested) {
      const c = await benchCustomer(app);
      await loadServers(app, c.accountId, n, { nested: true });
      const body = JSON.stringify({ query, variables: { limit: n } });
      const ask = (requestId: string) =>
        fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${c.key}`, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
          body,
        }).then((r) => r.json());
      await ask(`warm-${n}`);
      app.countSql(`count-${n}`);
      const result = (await ask(`count-${n}`)) as { data: { servers: { nodes: unknown[] } } };
      if (result.data.servers.nodes.length !== n)
        throw new Error(`expected ${n} servers, got ${result.data.servers.nodes.length}`);
      const statements = app.sqlFor(`count-${n}`);
      counts.push(statements);
      const reps = 3;
      const started = performance.now();
      for (let i = 0; i < reps; i++) await ask(`time-${n}-${i}`);
      const ms = (performance.now() - started) / reps;
      const rows = n * 5; // the server, 2 IPs, a snapshot, an add-on
      perRow.push(ms / rows);
      figures.push({
        scenario: '3 nested N+1',
        metric: `${n} servers: SQL statements`,
        value: statements,
        unit: 'statements',
      });
      figures.push({ scenario: '3 nested N+1', metric: `${n} servers: latency`, value: ms, unit: 'ms' });
    }
    const constant = counts.every((x) => x === counts[0]);
    figures.push({
      scenario: '3 nested N+1',
      metric: 'statements the same for every size',
      value: constant ? 1 : 0,
      unit: 'bool',
      budget: '= 1',
      pass: constant,
    });
    // At most linear: the time per row returned may not grow with the size.
    const growth = perRow[perRow.length - 1] / perRow[0];
    figures.push({
      scenario: '3 nested N+1',
      metric: 'time per row, largest / smallest',
      value: growth,
      unit: 'ratio',
      budget: '≤ 1 (at most linear)',
      pass: growth <= 1.2,
    });
    return figures;
  } finally {
    await app.stop();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}
