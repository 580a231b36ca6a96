import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { advance, runningServer } from '../helpers/servers.ts';
import { powerTimeline } from '../../src/provider/simulated-usage.ts';

/** Server.usage: the usage history a console charts on first load (GraphQL only). */
let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 100_000 });
});
afterAll(() => app?.stop());

const SAMPLE = `sampledAt cpu { percent } memory { usedMb totalMb }
  network { rxBytesPerSecond txBytesPerSecond rxBytesTotal txBytesTotal }
  disk { usedGb totalGb readBytesPerSecond writeBytesPerSecond }`;

interface Sample {
  sampledAt: string;
  cpu: { percent: number };
  memory: { usedMb: number; totalMb: number };
  network: { rxBytesPerSecond: number; txBytesPerSecond: number; rxBytesTotal: number; txBytesTotal: number };
  disk: { usedGb: number; totalGb: number; readBytesPerSecond: number; writeBytesPerSecond: number };
}
interface Usage {
  period: string;
  step: number;
  from: string;
  to: string;
  samples: Sample[];
}

/** Server.usage over GraphQL, as the customer's key reads it. */
async function usage(id: string, period?: string, key = c.key): Promise<Usage> {
  const arg = period ? `(period: ${period})` : '';
  const res = await gql(
    app,
    `query($id: ID!) { server(id: $id) { usage${arg} { period step from to samples { ${SAMPLE} } } } }`,
    {
      key,
      variables: { id },
    },
  );
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.server.usage;
}

/** The per-second network figures of a sample. */
const pick = (n: Sample['network']) => ({ rxBytesPerSecond: n.rxBytesPerSecond, txBytesPerSecond: n.txBytesPerSecond });

/** No load: what a minute of a stopped server shows. */
const idle = (s: Sample) =>
  s.cpu.percent === 0 &&
  s.memory.usedMb === 0 &&
  s.network.rxBytesPerSecond === 0 &&
  s.network.txBytesPerSecond === 0 &&
  s.disk.readBytesPerSecond === 0 &&
  s.disk.writeBytesPerSecond === 0;

describe('Server.usage', () => {
  it('answers 60 samples of a minute, 96 of 15 minutes or 168 of an hour, the last one under way now', async () => {
    const id = await runningServer(app, c);
    for (const [period, points, step] of [
      [undefined, 60, 60],
      ['HOUR', 60, 60],
      ['DAY', 96, 900],
      ['WEEK', 168, 3600],
    ] as const) {
      const u = await usage(id, period);
      expect(u.period).toBe(period ?? 'HOUR');
      expect([u.samples.length, u.step]).toEqual([points, step]);
      const times = u.samples.map((s) => Date.parse(s.sampledAt));
      expect(times[0]).toBe(Date.parse(u.from));
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(step * 1000);
      // Each step starts on a multiple of the step; the last one holds the moment of the read.
      expect(times.every((t) => t % (step * 1000) === 0)).toBe(true);
      const to = Date.parse(u.to);
      expect(to >= times[times.length - 1] && to < times[times.length - 1] + step * 1000).toBe(true);
    }
  });

  it("the current minute's sample has exactly the figures GET /v1/servers/:id/stats answers", async () => {
    const id = await runningServer(app, c);
    // Real time runs under the simulated clock: read again if a minute turned between the reads.
    for (let attempt = 0; attempt < 3; attempt++) {
      const live = await app.call('GET', `/v1/servers/${id}/stats`, { key: c.key });
      expect(live.status, live.text).toBe(200);
      const last = (await usage(id, 'HOUR')).samples.at(-1) as Sample;
      if (last.sampledAt !== live.body.sampledAt) continue;
      const { serverId: _id, status, ...figures } = live.body as Json;
      expect(status).toBe('running');
      // The totals count up to the instant of each read; every other figure is the minute's.
      const { rxBytesTotal, txBytesTotal, ...rates } = last.network;
      expect({ ...last, network: rates }).toEqual({ ...figures, network: pick(figures.network) });
      expect(rxBytesTotal - figures.network.rxBytesTotal).toBeGreaterThanOrEqual(0);
      expect(rxBytesTotal - figures.network.rxBytesTotal).toBeLessThan(400_000 * 5);
      expect(txBytesTotal - figures.network.txBytesTotal).toBeGreaterThanOrEqual(0);
      expect(last.cpu.percent).toBeGreaterThan(0);
      return;
    }
    throw new Error('the minute kept turning between the two reads');
  });

  it('is zero before the server was provisioned, and shows no load while it was stopped', async () => {
    const orderedAt = app.running.app.clock.now().getTime();
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'usage-1',
      osTemplate: 'ubuntu-24.04',
    });
    expect(order.status, order.text).toBe(201);
    // Provisioning: nothing to show yet, not even the plan's totals.
    const before = await usage(order.body.id, 'HOUR');
    expect(before.samples.every((s) => idle(s) && s.memory.totalMb === 0 && s.disk.totalGb === 0)).toBe(true);

    await advance(app, 180);
    const id: string = order.body.id;
    await advance(app, 10 * 60);
    const running = await usage(id, 'HOUR');
    const ran = running.samples.filter((s) => !idle(s));
    // The build took the simulated provider's two minutes: the first minute with load is the one
    // it ended in (the clock also runs in real time, so allow that minute's neighbour), and every
    // earlier minute is all zero.
    const built = orderedAt + 120_000;
    const firstRunAt = Date.parse(ran[0].sampledAt);
    expect(firstRunAt).toBeGreaterThan(built - 60_000);
    expect(firstRunAt).toBeLessThanOrEqual(built + 60_000);
    expect(ran.length).toBeGreaterThanOrEqual(10);
    const firstRun = running.samples.indexOf(ran[0]);
    expect(ran.length).toBe(running.samples.length - firstRun);
    expect(running.samples.slice(firstRun).every((s) => s.cpu.percent >= 2 && s.memory.totalMb === 4096)).toBe(true);
    expect(running.samples.slice(0, firstRun).every((s) => idle(s) && s.memory.totalMb === 0)).toBe(true);

    // Stopped through the power mutation, then 20 minutes on: those minutes carry no load, the totals stay.
    const stop = await gql(app, 'mutation($id: ID!) { serverPower(id: $id, action: stop) { status } }', {
      key: c.key,
      variables: { id },
    });
    expect(stop.body.errors, stop.text).toBeUndefined();
    expect(stop.body.data.serverPower.status).toBe('stopped');
    await advance(app, 20 * 60);
    const stopped = await usage(id, 'HOUR');
    const last20 = stopped.samples.slice(-20);
    expect(last20.every((s) => idle(s) && s.memory.totalMb === 4096 && s.disk.totalGb === 50)).toBe(true);
    // The minutes it ran before the stop keep their load.
    expect(stopped.samples.slice(-32, -22).every((s) => s.cpu.percent >= 2)).toBe(true);

    // The day's 15-minute steps average the same minutes: the step with only stopped minutes is idle.
    const day = await usage(id, 'DAY');
    const lastFull = day.samples.at(-2) as Sample;
    expect(Date.parse(lastFull.sampledAt)).toBeGreaterThan(Date.parse(stopped.to) - 35 * 60_000);
    expect(day.samples.slice(0, -4).every((s) => idle(s) && s.memory.totalMb === 0)).toBe(true);

    // Started again: the minutes from then on carry load again.
    await gql(app, 'mutation($id: ID!) { serverPower(id: $id, action: start) { status } }', {
      key: c.key,
      variables: { id },
    });
    await advance(app, 5 * 60);
    const again = await usage(id, 'HOUR');
    expect(again.samples.slice(-5).every((s) => s.cpu.percent >= 2)).toBe(true);
    expect(again.samples.slice(-24, -7).every(idle)).toBe(true);
  });

  it("another account's server is the same not-found as serverStats", async () => {
    const other = await app.customer();
    const id = await runningServer(app, other);
    const [viaUsage, viaStats] = await Promise.all([
      gql(app, 'query($id: ID!) { server(id: $id) { usage { step } } }', { key: c.key, variables: { id } }),
      gql(app, 'query($id: ID!) { serverStats(id: $id) { sampledAt } }', { key: c.key, variables: { id } }),
    ]);
    expect(viaUsage.status).toBe(viaStats.status);
    expect(viaUsage.body.data).toBeNull();
    expect(viaUsage.body.errors).toEqual([{ ...viaStats.body.errors[0], path: ['server'] }]);
    expect(viaUsage.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
  });

  it('a key without servers:read is refused as serverStats refuses it', async () => {
    const id = await runningServer(app, c);
    const narrow = await app.customer({ scopes: ['billing:read'] });
    const [viaUsage, viaStats] = await Promise.all([
      gql(app, 'query($id: ID!) { server(id: $id) { usage { step } } }', { key: narrow.key, variables: { id } }),
      gql(app, 'query($id: ID!) { serverStats(id: $id) { sampledAt } }', { key: narrow.key, variables: { id } }),
    ]);
    expect(viaUsage.status).toBe(viaStats.status);
    expect(viaUsage.body.errors?.[0]?.message).toMatch(/servers:read/);
    expect(viaUsage.body.errors[0].message).toBe(viaStats.body.errors[0].message);
    expect(viaUsage.body.errors[0].extensions).toEqual(viaStats.body.errors[0].extensions);
  });

  it('a period it does not know is a GraphQL validation error', async () => {
    const id = await runningServer(app, c);
    const res = await gql(app, 'query($id: ID!) { server(id: $id) { usage(period: MONTH) { step } } }', {
      key: c.key,
      variables: { id },
    });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/UsagePeriod/);
    expect(res.body.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('reads a week in well under a second', async () => {
    const id = await runningServer(app, c);
    await advance(app, 8 * 86400);
    const started = performance.now();
    const week = await usage(id, 'WEEK');
    const took = performance.now() - started;
    expect(week.samples.filter((s) => !idle(s)).length).toBe(168);
    expect(took).toBeLessThan(1000);
  });
});

describe("the simulated provider's power timeline, from its log", () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000);
  const changes = (lines: [number, string][]) =>
    powerTimeline(lines.map(([m, line]) => ({ at: at(m), line }))).map((c) => [
      (c.at - at(0).getTime()) / 60_000,
      c.running,
    ]);

  it('runs from the image on; a reboot, plan change or restore is down for a minute, a rebuild until it finishes', () => {
    expect(
      changes([
        [0, 'queued ubuntu-24.04 on std-2c-4g-50'],
        // 198.18.1.2 is text of a simulated log line: only parsed, never connected to.
        [3, 'image written; network up on 198.18.1.2'],
        [10, 'power reboot'],
        [20, 'resize to std-4c-8g-80 (4 vCPU, 8192 MB)'],
        [30, 'disk wiped; rebuilding from debian-12'],
        [32, 'rebuild finished'],
        [40, 'snapshot snap_x'],
        [50, 'power stop'],
        [55, 'resize to std-2c-4g-50 (2 vCPU, 4096 MB)'],
        [60, 'disk rolled back to snap_x'],
      ]),
    ).toEqual([
      [3, true],
      [10, false],
      [11, true],
      [20, false],
      [21, true],
      [30, false],
      [32, true],
      [50, false],
      // A stopped server's plan change and restore leave it stopped.
      [60, false],
      [61, false],
    ]);
  });

  it('a suspension during a reboot wins: the server does not come back', () => {
    expect(
      changes([
        [0, 'image written; network up'],
        [10, 'power reboot'],
        [10.5, 'suspended (powered off): unpaid'],
        // 198.18.1.3 is text of a simulated log line: only parsed, never connected to.
        [30, 'routing 198.18.1.3'],
      ]),
    ).toEqual([
      [0, true],
      [10, false],
      [10.5, false],
    ]);
  });
});
