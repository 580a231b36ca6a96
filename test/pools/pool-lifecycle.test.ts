import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ALL, buy, SHAPE, SHAPE_PRICE, WRITE } from '../helpers/pools.ts';
import { advance, balance, debits, expectError } from '../helpers/servers.ts';
import { cycleOf, prorate } from '../../src/modules/billing/proration.ts';

// A pool's life: catalogue and quote, purchase, resize, deletion, and the same over GraphQL.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('catalogue and quote', () => {
  it('the catalogue lists products with per-unit prices in cents and slider bounds', async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const res = await app.call('GET', '/v1/pools/catalogue', { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      productId: 'pool-fra1',
      name: expect.any(String),
      rates_cents: { vcpu: 400, ram2gb: 500, disk100: 300, ip16: 3200 },
      bounds: {
        vcpu: { min: 2, max: 64 },
        ram2gb: { min: 1, max: 128 },
        disk100: { min: 1, max: 40 },
        ip16: { min: 0, max: 8 },
      },
      unitSizes: { vcpu: '1 vCPU', ram2gb: '2 GB RAM', disk100: '100 GB disk', ip16: '16 IPv4 addresses' },
    });
  });

  it('a quote prices server-side with a breakdown and resolved figures, and charges nothing', async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const res = await app.call('POST', '/v1/pools/quote', { key: c.key, body: { productId: 'pool-fra1', ...SHAPE } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      productId: 'pool-fra1',
      monthlyUsdCents: SHAPE_PRICE,
      breakdown: [
        { unit: 'vcpu', description: '1 vCPU', quantity: 8, unitPriceUsdCents: 400, amountUsdCents: 3200 },
        { unit: 'ram2gb', description: '2 GB RAM', quantity: 8, unitPriceUsdCents: 500, amountUsdCents: 4000 },
        { unit: 'disk100', description: '100 GB disk', quantity: 2, unitPriceUsdCents: 300, amountUsdCents: 600 },
        { unit: 'ip16', description: '16 IPv4 addresses', quantity: 1, unitPriceUsdCents: 3200, amountUsdCents: 3200 },
      ],
      resolved: { vcpu: 8, ramGb: 16, diskGb: 200, ipv4Addresses: 16 },
    });
    expectError(
      await app.call('POST', '/v1/pools/quote', { key: c.key, body: { productId: 'pool-fra1', ...SHAPE, vcpu: 65 } }),
      400,
      /vcpu/,
    );
    expectError(
      await app.call('POST', '/v1/pools/quote', { key: c.key, body: { productId: 'nope', ...SHAPE } }),
      400,
      /productId/,
    );
    expectError(
      await app.call('POST', '/v1/pools/quote', {
        key: c.key,
        body: { productId: 'pool-fra1', ...SHAPE, totalUsdCents: 1 },
      }),
      400,
    );
    expect(await debits(app, c)).toEqual([]);
  });
});

describe('buy', () => {
  it('debits the first month at once and provisions the pool with its IP block', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    expect(pool).toMatchObject({
      id: expect.stringMatching(/^pool_/),
      productId: 'pool-fra1',
      label: 'cluster',
      status: 'active',
      ...SHAPE,
      quota: { vcpu: 8, ramMb: 16384, diskGb: 200, ips: 16 },
      rates_cents: { vcpu: 400, ram2gb: 500, disk100: 300, ip16: 3200 },
      monthlyUsdCents: SHAPE_PRICE,
      usage: { vcpu: 0, ramMb: 0, diskGb: 0, ips: 0, servers: 0 },
      bounds: { vcpu: { min: 2, max: 64 } },
      servers: [],
    });
    expect(await balance(app, c)).toBe(50_000 - SHAPE_PRICE);
    expect(await debits(app, c)).toMatchObject([
      { amountUsdCents: -SHAPE_PRICE, kind: 'pool_purchase', reference: pool.id },
    ]);
    const list = await app.call('GET', '/v1/pools', { key: c.key });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      id: pool.id,
      status: 'active',
      monthlyUsdCents: SHAPE_PRICE,
      renewsAt: pool.renewsAt,
      vcpu: 8,
    });
    const ips = await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key });
    expect(ips.body.data).toHaveLength(16);
    expect(ips.body.data[0]).toEqual({
      ip: expect.stringMatching(/^198\.19\./),
      version: 4,
      ptr: null,
      zoneHosted: true,
      assignedTo: null,
    });
  });

  it('400 on insufficient balance or a selection outside the bounds, with nothing debited', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: SHAPE_PRICE - 1 });
    expectError(
      await app.call('POST', '/v1/pools', { key: c.key, body: { productId: 'pool-fra1', label: 'x', ...SHAPE } }),
      400,
      /Insufficient wallet balance/,
    );
    for (const bad of [{ vcpu: 1 }, { vcpu: 65 }, { ram2gb: 0 }, { disk100: 41 }, { ip16: 9 }, { ip16: -1 }]) {
      expectError(
        await app.call('POST', '/v1/pools', {
          key: c.key,
          body: { productId: 'pool-fra1', label: 'x', ...SHAPE, ...bad },
        }),
        400,
        /outside the bounds/,
      );
    }
    expectError(
      await app.call('POST', '/v1/pools', { key: c.key, body: { productId: 'pool-fra1', label: '', ...SHAPE } }),
      400,
      /label/,
    );
    expectError(
      await app.call('POST', '/v1/pools', {
        key: c.key,
        body: { productId: 'pool-fra1', label: 'x', ...SHAPE, vcpu: 2.5 },
      }),
      400,
    );
    expect(await balance(app, c)).toBe(SHAPE_PRICE - 1);
    expect(await debits(app, c)).toEqual([]);
    expect((await app.call('GET', '/v1/pools', { key: c.key })).body.data).toEqual([]);
    const reader = await app.customer({ scopes: ['servers:read'] });
    expectError(
      await app.call('POST', '/v1/pools', { key: reader.key, body: { productId: 'pool-fra1', label: 'x', ...SHAPE } }),
      403,
    );
  });

  it('another account sees 404 on every pool path', async () => {
    const c = await app.customer({ scopes: ALL, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const other = await app.customer({ scopes: ALL });
    expectError(await app.call('GET', `/v1/pools/${pool.id}`, { key: other.key }), 404);
    expectError(await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: other.key }), 404);
    expectError(await app.call('PATCH', `/v1/pools/${pool.id}`, { key: other.key, body: SHAPE }), 404);
    expectError(await app.call('POST', `/v1/pools/${pool.id}/resize-quote`, { key: other.key, body: SHAPE }), 404);
    expectError(await app.call('DELETE', `/v1/pools/${pool.id}`, { key: other.key }), 404);
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: other.key,
        body: { productId: 'std-1c-2g-50', label: 'x', osTemplate: 'debian-12' },
      }),
      404,
    );
  });
});

describe('resize', () => {
  it('resize-quote prices growth at the sold rates, prorated for the days left; nothing charged', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    await advance(app, 10 * 86400);
    const before = await balance(app, c);
    const q = await app.call('POST', `/v1/pools/${pool.id}/resize-quote`, {
      key: c.key,
      body: { ...SHAPE, vcpu: 16, disk100: 1 },
    });
    expect(q.status).toBe(200);
    const cycle = cycleOf(new Date(pool.renewsAt), app.running.app.clock.now());
    expect(cycle.daysLeft).toBeLessThan(cycle.cycleDays);
    expect(q.body).toMatchObject({
      poolId: pool.id,
      vcpu: 16,
      currentMonthlyUsdCents: SHAPE_PRICE,
      monthlyUsdCents: SHAPE_PRICE + 8 * 400 - 300,
      differenceUsdCents: 8 * 400 - 300,
      // growth only (8 vCPU); the disk shrink is not netted against it
      charge_now_usd_cents: prorate(8 * 400, cycle),
      daysLeft: cycle.daysLeft,
      cycleDays: cycle.cycleDays,
    });
    expect(await balance(app, c)).toBe(before);
  });

  it('PATCH charges growth now at the sold rates even after a catalogue price change; shrink is not refunded', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const prisma = app.running.app.prisma;
    // The catalogue price goes up after the sale; the pool keeps its rates.
    const product = await prisma.product.findUniqueOrThrow({ where: { id: 'pool-fra1' } });
    await prisma.product.update({
      where: { id: 'pool-fra1' },
      data: {
        details: {
          ...(product.details as object),
          unitPricesCents: { vcpu: 999, ram2gb: 999, disk100: 999, ip16: 9999 },
        },
      },
    });
    try {
      const quote = (
        await app.call('POST', `/v1/pools/${pool.id}/resize-quote`, {
          key: c.key,
          body: { ...SHAPE, vcpu: 12, ip16: 2 },
        })
      ).body;
      const before = await balance(app, c);
      const grown = await app.call('PATCH', `/v1/pools/${pool.id}`, {
        key: c.key,
        body: { ...SHAPE, vcpu: 12, ip16: 2 },
      });
      expect(grown.status, grown.text).toBe(200);
      expect(grown.body).toMatchObject({
        vcpu: 12,
        ip16: 2,
        monthlyUsdCents: SHAPE_PRICE + 4 * 400 + 3200,
        rates_cents: { vcpu: 400 },
        renewsAt: pool.renewsAt,
      });
      expect(await balance(app, c)).toBe(before - quote.charge_now_usd_cents);
      expect((await debits(app, c)).at(-1)).toMatchObject({
        kind: 'pool_resize',
        amountUsdCents: -quote.charge_now_usd_cents,
        reference: pool.id,
      });
      expect((await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data).toHaveLength(32);

      const mid = await balance(app, c);
      const shrunk = await app.call('PATCH', `/v1/pools/${pool.id}`, {
        key: c.key,
        body: { ...SHAPE, vcpu: 4, ip16: 0 },
      });
      expect(shrunk.status).toBe(200);
      expect(shrunk.body).toMatchObject({ vcpu: 4, ip16: 0, monthlyUsdCents: SHAPE_PRICE - 4 * 400 - 3200 });
      expect(await balance(app, c)).toBe(mid);
      expect((await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data).toEqual([]);
    } finally {
      await prisma.product.update({ where: { id: 'pool-fra1' }, data: { details: product.details as object } });
    }
  });

  it('refuses (409) a shrink below what the pool servers hold, 400 outside bounds or on short balance; wallet unchanged', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: SHAPE_PRICE + 100 });
    const pool = await buy(app, c);
    await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-4c-8g-100', label: 'a', osTemplate: 'debian-12', ipCount: 1 },
    });
    const before = await balance(app, c);
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, vcpu: 3 } }),
      409,
      /hold more/,
    );
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, disk100: 1, ram2gb: 3 } }),
      409,
      /ramMb 8192 > 6144/,
    );
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, ip16: 0 } }),
      409,
      /ips/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/resize-quote`, { key: c.key, body: { ...SHAPE, vcpu: 3 } }),
      409,
    );
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, vcpu: 100 } }),
      400,
      /bounds/,
    );
    expectError(
      await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { ...SHAPE, vcpu: 64 } }),
      400,
      /Insufficient wallet balance/,
    );
    expectError(await app.call('PATCH', `/v1/pools/${pool.id}`, { key: c.key, body: { vcpu: 8 } }), 400);
    expect(await balance(app, c)).toBe(before);
    expect((await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body).toMatchObject(SHAPE);
  });
});

describe('delete', () => {
  it('needs servers:destroy; servers powered off and preserved, IP block returned, no refund', async () => {
    const c = await app.customer({ scopes: ALL, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const a = (
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'a', osTemplate: 'debian-12' },
      })
    ).body;
    await advance(app, 180);
    const writer = await app.customer({ scopes: WRITE });
    expectError(await app.call('DELETE', `/v1/pools/${pool.id}`, { key: writer.key }), 403);
    const before = await balance(app, c);
    const res = await app.call('DELETE', `/v1/pools/${pool.id}`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pool.id, status: 'deleted' });
    expect(await balance(app, c)).toBe(before);
    expectError(await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key }), 404);
    expect((await app.call('GET', '/v1/pools', { key: c.key })).body.data).toEqual([]);
    const server = await app.call('GET', `/v1/servers/${a.id}`, { key: c.key });
    expect(server.body).toMatchObject({ status: 'stopped', ips: [] });
    expectError(await app.call('POST', `/v1/servers/${a.id}/power/start`, { key: c.key }), 409, /pool was deleted/);
    expect(await app.running.app.prisma.serverIp.count({ where: { poolId: pool.id } })).toBe(0);
  });
});

describe('GraphQL serves the same operations', () => {
  it('poolQuote and poolCreate over /graphql, with scope checks', async () => {
    const { gql } = await import('../helpers/graphql.ts');
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const q = await gql(
      app,
      'query($p: String!) { poolQuote(productId: $p, vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1) { monthlyUsdCents resolved { ramGb } } }',
      { key: c.key, variables: { p: 'pool-fra1' } },
    );
    expect(q.body).toEqual({ data: { poolQuote: { monthlyUsdCents: SHAPE_PRICE, resolved: { ramGb: 16 } } } });
    const m = await gql(
      app,
      'mutation { poolCreate(productId: "pool-fra1", label: "g", vcpu: 2, ram2gb: 1, disk100: 1, ip16: 0) { id status monthlyUsdCents usage { servers } bounds { vcpu { min max } } } }',
      { key: c.key },
    );
    expect(m.body.data.poolCreate).toMatchObject({
      status: 'active',
      monthlyUsdCents: 2 * 400 + 500 + 300,
      usage: { servers: 0 },
      bounds: { vcpu: { min: 2, max: 64 } },
    });
    const reader = await app.customer({ scopes: ['servers:read'] });
    const denied = await gql(
      app,
      'mutation { poolCreate(productId: "pool-fra1", label: "g", vcpu: 2, ram2gb: 1, disk100: 1, ip16: 0) { id } }',
      { key: reader.key },
    );
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await balance(app, reader)).toBe(10_000);
  });
});
