import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { balance, debits, expectError, runningServer } from '../helpers/servers.ts';
import { cycleOf, prorate } from '../../src/modules/billing/proration.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const WRITE = ['servers:read', 'servers:write'];

async function renewsAt(id: string, key: string): Promise<Date> {
  return new Date((await app.call('GET', `/v1/servers/${id}`, { key })).body.renewsAt);
}

describe('add-on list', () => {
  it('offers extra IPs, /24 blocks, the SEO IP Pack and backups with monthly and prorated prices in cents', async () => {
    const c = await app.customer();
    const id = await runningServer(app, c);
    const res = await app.call('GET', `/v1/servers/${id}/addons`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.data.map((a: { type: string }) => a.type)).toEqual([
      'extra_ip',
      'extra_ip',
      'ip_block_24',
      'seo_ip_pack',
      'backups',
      'backups',
    ]);
    const seo = res.body.data.find((a: { id: string }) => a.id === 'addon-seo-pack');
    expect(seo).toEqual({
      id: 'addon-seo-pack',
      name: expect.stringMatching(/SEO IP Pack/),
      type: 'seo_ip_pack',
      ipCount: 7,
      active: false,
      monthly_usd_cents: 2900,
      prorated_usd_cents: expect.any(Number),
      owned_by_type: false,
      available: true,
      stock_note: null,
    });
    const cycle = cycleOf(await renewsAt(id, c.key), app.running.app.clock.now());
    for (const a of res.body.data) expect(a.prorated_usd_cents).toBe(prorate(a.monthly_usd_cents, cycle));
  });
});

describe('attach and detach', () => {
  it('attach debits the prorated price at once with one wallet transaction and routes the addresses', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 10_000 });
    const id = await runningServer(app, c);
    const listed = (await app.call('GET', `/v1/servers/${id}/addons`, { key: c.key })).body.data.find(
      (a: { id: string }) => a.id === 'addon-ipv4-4',
    );
    const res = await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-4' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 'addon-ipv4-4',
      serverId: id,
      type: 'extra_ip',
      monthlyUsdCents: 1000,
      chargedUsdCents: listed.prorated_usd_cents,
      transactionId: expect.stringMatching(/^txn_/),
    });
    expect(res.body.ips).toHaveLength(4);
    expect(await balance(app, c)).toBe(10_000 - listed.prorated_usd_cents);
    const txns = await debits(app, c);
    expect(txns).toMatchObject([
      {
        id: res.body.transactionId,
        amountUsdCents: -listed.prorated_usd_cents,
        balanceAfterUsdCents: 10_000 - listed.prorated_usd_cents,
        kind: 'addon_purchase',
        reference: id,
      },
    ]);
    const ips = (await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data.map(
      (ip: { ip: string }) => ip.ip,
    );
    expect(ips).toEqual(expect.arrayContaining(res.body.ips));
    const list = (await app.call('GET', `/v1/servers/${id}/addons`, { key: c.key })).body.data;
    expect(list.find((a: { id: string }) => a.id === 'addon-ipv4-4')).toMatchObject({
      active: true,
      owned_by_type: true,
    });
    expect(list.find((a: { id: string }) => a.id === 'addon-ipv4-1')).toMatchObject({
      active: false,
      owned_by_type: true,
    });
    expect(list.find((a: { id: string }) => a.id === 'addon-backups-daily')).toMatchObject({ owned_by_type: false });
  });

  it('400 when the same type is already active, with nothing debited; changing tier is DELETE then POST; detach never refunds', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 10_000 });
    const id = await runningServer(app, c);
    expect(
      (await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-1' } })).status,
    ).toBe(200);
    const after = await balance(app, c);
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-4' } }),
      400,
      /already active/,
    );
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-1' } }),
      400,
      /already active/,
    );
    expect(await balance(app, c)).toBe(after);
    expect(await debits(app, c)).toHaveLength(1);

    const ipsBefore = (await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data.length;
    const det = await app.call('DELETE', `/v1/servers/${id}/addons/addon-ipv4-1`, { key: c.key });
    expect(det.status).toBe(200);
    expect(det.body).toMatchObject({
      id: 'addon-ipv4-1',
      serverId: id,
      detached: true,
      releasedIps: [expect.any(String)],
    });
    expect(await balance(app, c)).toBe(after);
    expect((await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data).toHaveLength(ipsBefore - 1);
    expect(await app.running.app.prisma.serverIp.count({ where: { address: det.body.releasedIps[0] } })).toBe(0);
    expectError(await app.call('DELETE', `/v1/servers/${id}/addons/addon-ipv4-1`, { key: c.key }), 404);
    expect(
      (await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-4' } })).status,
    ).toBe(200);
    expect(await debits(app, c)).toHaveLength(2);
  });

  it('400 when the balance does not cover it, with nothing debited and no stock taken', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50 });
    const id = await runningServer(app, c);
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-block-24' } }),
      400,
      /Insufficient wallet balance/,
    );
    expect(await balance(app, c)).toBe(50);
    expect(await debits(app, c)).toEqual([]);
    const list = (await app.call('GET', `/v1/servers/${id}/addons`, { key: c.key })).body.data;
    expect(list.find((a: { id: string }) => a.id === 'addon-block-24')).toMatchObject({
      active: false,
      owned_by_type: false,
      available: true,
    });
    expect((await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data).toHaveLength(1);
  });

  it('400 when stock is short (available: false with a stock_note), with nothing debited; detach returns the stock', async () => {
    // The simulated datacenter starts with two /24 blocks.
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const [a, b, d] = [await runningServer(app, c), await runningServer(app, c), await runningServer(app, c)];
    const first = await app.call('POST', `/v1/servers/${a}/addons`, {
      key: c.key,
      body: { addonId: 'addon-block-24' },
    });
    expect(first.status).toBe(200);
    expect(first.body.ips).toHaveLength(256);
    expect(new Set(first.body.ips.map((ip: string) => ip.split('.').slice(0, 3).join('.'))).size).toBe(1);
    expect(
      (await app.call('POST', `/v1/servers/${b}/addons`, { key: c.key, body: { addonId: 'addon-block-24' } })).status,
    ).toBe(200);
    const before = await balance(app, c);
    const offer = (await app.call('GET', `/v1/servers/${d}/addons`, { key: c.key })).body.data.find(
      (x: { id: string }) => x.id === 'addon-block-24',
    );
    expect(offer).toMatchObject({ available: false, stock_note: expect.stringMatching(/out of stock/i) });
    expectError(
      await app.call('POST', `/v1/servers/${d}/addons`, { key: c.key, body: { addonId: 'addon-block-24' } }),
      400,
      /out of stock/i,
    );
    expect(await balance(app, c)).toBe(before);
    expect(await debits(app, c)).toHaveLength(2);

    expect(
      (await app.call('DELETE', `/v1/servers/${a}/addons/addon-block-24`, { key: c.key })).body.releasedIps,
    ).toHaveLength(256);
    expect(
      (await app.call('GET', `/v1/servers/${d}/addons`, { key: c.key })).body.data.find(
        (x: { id: string }) => x.id === 'addon-block-24',
      ).available,
    ).toBe(true);
    expect(
      (await app.call('POST', `/v1/servers/${d}/addons`, { key: c.key, body: { addonId: 'addon-block-24' } })).status,
    ).toBe(200);
  });

  it('the SEO IP Pack routes 7 addresses from 7 different /24s', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 10_000 });
    const id = await runningServer(app, c);
    const res = await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-seo-pack' } });
    expect(res.status).toBe(200);
    expect(res.body.ips).toHaveLength(7);
    expect(new Set(res.body.ips.map((ip: string) => ip.split('.').slice(0, 3).join('.'))).size).toBe(7);
  });

  it('unknown add-on 400, another account 404, a provisioning server 409, servers:read cannot attach', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: 'addon-nope' } }),
      400,
      /addonId/,
    );
    expectError(await app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: {} }), 400, /addonId/);
    const other = await app.customer({ scopes: WRITE });
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: other.key, body: { addonId: 'addon-ipv4-1' } }),
      404,
    );
    expectError(await app.call('GET', `/v1/servers/${id}/addons`, { key: other.key }), 404);
    const reader = await app.customer({ scopes: ['servers:read'] });
    expectError(
      await app.call('POST', `/v1/servers/${id}/addons`, { key: reader.key, body: { addonId: 'addon-ipv4-1' } }),
      403,
    );
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'new',
      osTemplate: 'debian-12',
    });
    expectError(
      await app.call('POST', `/v1/servers/${order.body.id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-1' } }),
      409,
    );
    expect(await debits(app, c)).toEqual([]);
  });
});

describe('concurrency', () => {
  it('20 simultaneous attaches of one type on one server: exactly one succeeds and exactly one debit', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const id = await runningServer(app, c);
    const tiers = ['addon-ipv4-1', 'addon-ipv4-4'];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        app.call('POST', `/v1/servers/${id}/addons`, { key: c.key, body: { addonId: tiers[i % 2] } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 400, /already active/);
    const txns = await debits(app, c);
    expect(txns).toHaveLength(1);
    expect(await balance(app, c)).toBe(100_000 - ok[0].body.chargedUsdCents);
    expect(await app.running.app.prisma.serverAddon.count({ where: { serverId: id } })).toBe(1);
    expect((await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data).toHaveLength(
      1 + ok[0].body.ips.length,
    );
  });
});
