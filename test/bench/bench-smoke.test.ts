import { describe, expect, it, vi } from 'vitest';
import { coldStartAndMemory } from '../../bench/cold-start.ts';
import { livePage } from '../../bench/live-page.ts';
import { subscribers, webhookPipeline } from '../../bench/event-delivery.ts';
import { overload } from '../../bench/overload.ts';
import { readPath } from '../../bench/read-path.ts';
import { nestedQuery, restAndGraphql, TINY } from '../../bench/scenarios.ts';
import { hasChromium } from '../helpers/browser.ts';

/**
 * Every benchmark scenario once at a tiny size, so `npm run bench` cannot rot. Figures are
 * only checked for being produced and for the invariants each scenario relies on; budgets
 * are `npm run bench`'s business, never a timed test's.
 */
vi.setConfig({ testTimeout: 240_000 });

// The benchmarks pick their database from BENCH_DATABASE_URL, never TEST_DATABASE_URL: in the
// suite's PostgreSQL run (CI's second) this file would repeat the embedded run exactly,
// so it runs there only when BENCH_DATABASE_URL is given too.
const repeatsTheEmbeddedRun = Boolean(process.env.TEST_DATABASE_URL) && !process.env.BENCH_DATABASE_URL;

describe.skipIf(repeatsTheEmbeddedRun)('benchmark scenarios at tiny size', () => {
  it('1, 2, 7: REST, GraphQL and the raw baseline return the same JSON; every figure is produced', async () => {
    const { figures, sameJson, middlewareOff } = await restAndGraphql(TINY);
    expect(sameJson).toBe(true);
    expect(middlewareOff).toBe(true);
    expect(figures.map((f) => f.metric)).toEqual(
      expect.arrayContaining([
        'SOFA / raw',
        'GraphQL / raw',
        'rate limit + idempotency cost',
        'p99 at 1,000 req/s offered',
      ]),
    );
    for (const f of figures) expect(Number.isFinite(f.value)).toBe(true);
    // The sliced runs served requests in every state: the three targets of 1 and 2, both states of 7's switch.
    for (const metric of [
      'raw node:http throughput',
      'SOFA throughput',
      'POST /graphql throughput',
      'SOFA with rate limit and idempotency',
      'SOFA without them',
    ]) {
      expect(figures.find((f) => f.metric === metric)!.value).toBeGreaterThan(0);
    }
  });

  it('3: the nested query sends the same number of SQL statements whatever the size', async () => {
    const figures = await nestedQuery(TINY);
    const statements = figures.filter((f) => f.metric.endsWith('SQL statements')).map((f) => f.value);
    expect(statements.length).toBe(TINY.nested.length);
    expect(new Set(statements).size).toBe(1);
    // The servers with their IPs, snapshots and add-ons joined in one statement (the credential
    // comes from the principal cache after the first request).
    expect(statements[0]).toBe(1);
  });

  it('4: every event reaches every webhook subscription', async () => {
    const figures = await webhookPipeline(TINY);
    expect(figures.find((f) => f.metric.includes('events ×'))!.value).toBe(
      TINY.webhookEvents * TINY.webhookSubscriptions,
    );
    expect(Number.isFinite(figures.find((f) => f.metric.startsWith('commit→receipt p99'))!.value)).toBe(true);
  });

  it('5: every subscriber receives every event', async () => {
    const figures = await subscribers(TINY);
    expect(figures[0].value).toBe(TINY.subscribers * TINY.subscriberEvents);
  });

  it('8: the anchor answers the same bodies as REST and GraphQL for every read, and the data layer for the server reads (the run fails otherwise); every figure is produced', async () => {
    const { figures, compared } = await readPath(TINY);
    expect(compared).toEqual([
      '/v1/servers?limit=50',
      expect.stringMatching(/^\/v1\/servers\/srv_/),
      '/v1/billing/invoices?page=1&limit=20',
      '/v1/tickets?limit=50',
      expect.stringMatching(/^\/v1\/tickets\/tkt_/),
      expect.stringMatching(/^\/v1\/webhooks\/wh_\w+\/deliveries\?limit=20$/),
      '/v1/pools?limit=50',
      expect.stringMatching(/^\/v1\/pools\/pool_/),
      '/v1/hosting?limit=50',
    ]);
    for (const f of figures) {
      // A stage with nothing to do for a read (GraphQL's variables stage) takes under the whole
      // microsecond stage times are counted in, for all five requests of the tiny size.
      const oneStage = / stages: /.test(f.metric) && !f.metric.endsWith('all stages');
      if (oneStage) expect(f.value, f.metric).toBeGreaterThanOrEqual(0);
      else expect(f.value, f.metric).toBeGreaterThan(0);
    }
    expect(figures.filter((f) => f.metric.startsWith('REST / anchor')).length).toBe(9);
    expect(figures.filter((f) => f.metric === 'REST / data layer').map((f) => f.scenario)).toEqual([
      '8 read path list',
      '8 read path detail',
    ]);
  });

  it('6: a fresh start becomes ready and the walk sees every server', async () => {
    const figures = await coldStartAndMemory(TINY);
    expect(Number.isFinite(figures[0].value)).toBe(true);
    expect(figures[1].value).toBeGreaterThan(0);
  });

  it.skipIf(!hasChromium)(
    '10: every change of every round reaches the open page; every figure is produced',
    async () => {
      const figures = await livePage(TINY);
      expect(figures).toHaveLength(6);
      for (const f of figures) expect(f.value, f.metric).toBeGreaterThanOrEqual(0);
      expect(figures.filter((f) => f.metric.includes('max of')).map((f) => f.metric)).toEqual([
        `reboot settles (live change): change → page max of ${TINY.liveRounds}`,
        `pool server built (event): change → page max of ${TINY.liveRounds}`,
        `redelivery attempted (live change): change → page max of ${TINY.liveRounds}`,
      ]);
    },
  );

  it('9: the flood and the 10-connection runs are driven and every figure is produced', async () => {
    const figures = await overload(TINY);
    expect(figures).toHaveLength(6);
    for (const f of figures) expect(Number.isFinite(f.value), f.metric).toBe(true);
  });
});
