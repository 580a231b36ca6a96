import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Json, type Reply, type TestApp } from '../helpers/app.ts';
import { ALL, buy, WRITE } from '../helpers/pools.ts';
import { advance, balance, events, expectError } from '../helpers/servers.ts';

// Servers inside a capacity pool: creation against the quota, the pool's IP block, pool rules.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('servers inside a pool', () => {
  it('creates free Linux servers checked against the quota; ipCount default 1, 0 is private-only', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const before = await balance(app, c);
    const a = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-4c-8g-100', label: 'a', os: 'linux', osTemplate: 'ubuntu-24.04' },
    });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toMatchObject({
      status: 'provisioning',
      poolId: pool.id,
      vcpu: 4,
      ramMb: 8192,
      diskGb: 100,
      renewsAt: null,
    });
    expect(a.body.ips).toHaveLength(1);
    const b = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c.key,
      body: { productId: 'std-2c-4g-50', label: 'private', osTemplate: 'debian-12', ipCount: 0 },
    });
    expect(b.status).toBe(200);
    expect(b.body.ips).toEqual([]);
    expect(await balance(app, c)).toBe(before);

    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-4c-8g-50', label: 'c', osTemplate: 'debian-12' },
      }),
      400,
      /quota/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'w', osTemplate: 'windows-2022' },
      }),
      400,
      /Linux only/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'x', osTemplate: 'debian-12', ipCount: 16 },
      }),
      400,
      /free addresses/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'x', osTemplate: 'debian-12', ipCount: -1 },
      }),
      400,
      /ipCount/,
    );

    await advance(app, 180);
    const detail = (await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body;
    expect(detail.usage).toEqual({ vcpu: 6, ramMb: 12288, diskGb: 150, ips: 1, servers: 2 });
    expect(
      detail.servers.map((s: { label: string; status: string; ips: unknown[] }) => [s.label, s.status, s.ips.length]),
    ).toEqual([
      ['a', 'running', 1],
      ['private', 'running', 0],
    ]);
    expect((await events(app, c, 'server.created')).length).toBe(2);
    // A stopped server still holds its allocation.
    await app.call('POST', `/v1/servers/${a.body.id}/power/stop`, { key: c.key });
    expect((await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body.usage.vcpu).toBe(6);
    expect(await balance(app, c)).toBe(before);
  });
});

describe('pool IPs', () => {
  it('applies a batch of {ip, serverId|null} atomically; refuses the whole batch (400) naming a foreign server or address', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const a = (
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'a', osTemplate: 'debian-12' },
      })
    ).body;
    const b = (
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'b', osTemplate: 'debian-12', ipCount: 0 },
      })
    ).body;
    const ips: { ip: string; assignedTo: string | null }[] = (
      await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })
    ).body.data;
    const aIp = ips.find((ip) => ip.assignedTo === a.id)!.ip;
    const free = ips.filter((ip) => ip.assignedTo === null).map((ip) => ip.ip);

    const res = await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
      key: c.key,
      body: {
        changes: [
          { ip: aIp, serverId: b.id },
          { ip: free[0], serverId: a.id },
          { ip: free[1], serverId: b.id },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    const holder = (ip: string) => res.body.find((x: { ip: string }) => x.ip === ip).assignedTo;
    expect([holder(aIp), holder(free[0]), holder(free[1])]).toEqual([b.id, a.id, b.id]);
    expect(
      (await app.call('GET', `/v1/servers/${b.id}/ips`, { key: c.key })).body.data
        .map((x: { ip: string }) => x.ip)
        .sort(),
    ).toEqual([aIp, free[1]].sort());

    // Another pool's server, a standalone address, an address outside the block: the whole batch is refused.
    const otherPool = await buy(app, c);
    const foreign = (
      await app.call('POST', `/v1/pools/${otherPool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'f', osTemplate: 'debian-12' },
      })
    ).body;
    const snapshot = (await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data;
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
        key: c.key,
        body: {
          changes: [
            { ip: free[2], serverId: a.id },
            { ip: free[3], serverId: foreign.id },
          ],
        },
      }),
      400,
      /changes\[1\]\.serverId.*not a server of this pool/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
        key: c.key,
        body: {
          changes: [
            { ip: free[2], serverId: a.id },
            { ip: '203.0.113.9', serverId: null },
          ],
        },
      }),
      400,
      /changes\[1\]\.ip.*not an address of this pool/,
    );
    expectError(
      await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
        key: c.key,
        body: {
          changes: [
            { ip: free[2], serverId: a.id },
            { ip: free[2], serverId: null },
          ],
        },
      }),
      400,
      /twice/,
    );
    expect((await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data).toEqual(snapshot);

    // null returns an address to the block
    const back = await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
      key: c.key,
      body: { changes: [{ ip: free[1], serverId: null }] },
    });
    expect(back.body.find((x: { ip: string }) => x.ip === free[1]).assignedTo).toBeNull();
  });

  it('is limited to 6 calls per minute per key', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const ip = (await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data[0].ip;
    const statuses: number[] = [];
    let last!: Reply<Json>;
    for (let i = 0; i < 7; i++) {
      last = await app.call('POST', `/v1/pools/${pool.id}/ips/apply`, {
        key: c.key,
        body: { changes: [{ ip, serverId: null }] },
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(last.headers.get('retry-after')).toBeTruthy();
  });
});

describe('pool servers follow pool rules', () => {
  it('no plan change or add-ons of their own, Linux-only reinstall, and termination returns addresses to the block', async () => {
    const c = await app.customer({ scopes: ALL, walletBalanceUsdCents: 50_000 });
    const pool = await buy(app, c);
    const s = (
      await app.call('POST', `/v1/pools/${pool.id}/servers`, {
        key: c.key,
        body: { productId: 'std-1c-2g-50', label: 'a', osTemplate: 'debian-12', ipCount: 2 },
      })
    ).body;
    await advance(app, 180);
    expectError(await app.call('GET', `/v1/servers/${s.id}/plan-options`, { key: c.key }), 409, /capacity pool/);
    expectError(
      await app.call('POST', `/v1/servers/${s.id}/change-plan`, { key: c.key, body: { productId: 'std-2c-4g-50' } }),
      409,
      /capacity pool/,
    );
    expect((await app.call('GET', `/v1/servers/${s.id}/addons`, { key: c.key })).body.data).toEqual([]);
    expectError(
      await app.call('POST', `/v1/servers/${s.id}/addons`, { key: c.key, body: { addonId: 'addon-ipv4-1' } }),
      400,
      /pool/,
    );
    expectError(
      await app.call('POST', `/v1/servers/${s.id}/reinstall`, { key: c.key, body: { osTemplate: 'windows-2022' } }),
      400,
      /Linux only/,
    );
    const before = await balance(app, c);
    expect((await app.call('DELETE', `/v1/servers/${s.id}`, { key: c.key })).status).toBe(200);
    const ips = (await app.call('GET', `/v1/pools/${pool.id}/ips`, { key: c.key })).body.data;
    expect(ips).toHaveLength(16);
    expect(ips.every((ip: { assignedTo: string | null }) => ip.assignedTo === null)).toBe(true);
    expect((await app.call('GET', `/v1/pools/${pool.id}`, { key: c.key })).body.usage).toEqual({
      vcpu: 0,
      ramMb: 0,
      diskGb: 0,
      ips: 0,
      servers: 0,
    });
    expect(await balance(app, c)).toBe(before);
  });
});
