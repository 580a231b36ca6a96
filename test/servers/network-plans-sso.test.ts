import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { advance, balance, debits, events, expectError, runningServer } from '../helpers/servers.ts';
import { consumeSsoToken } from '../../src/modules/servers/sso.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ publicBaseUrl: 'https://panel.example.net' });
});
afterAll(() => app?.stop());

const WRITE = ['servers:read', 'servers:write'];

describe('IPs and reverse DNS', () => {
  it('lists IPs with ptr and zoneHosted; PUT is an idempotent upsert; DELETE clears; events carry ptr null when cleared', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    const ips = await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key });
    expect(ips.status).toBe(200);
    expect(ips.body.data).toEqual([
      { ip: expect.stringMatching(/^198\.18\./), version: 4, ptr: null, zoneHosted: true, primary: true },
    ]);
    const ip = ips.body.data[0].ip;

    let res = await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, {
      key: c.key,
      body: { hostname: 'Mail.Example.com.' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ip, ptr: 'mail.example.com', zoneHosted: true });
    res = await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, {
      key: c.key,
      body: { hostname: 'mail.example.com' },
    });
    expect(res.status).toBe(200);
    expect(res.body.ptr).toBe('mail.example.com');
    res = await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, {
      key: c.key,
      body: { hostname: 'smtp.example.com' },
    });
    expect(res.body.ptr).toBe('smtp.example.com');
    expect((await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data[0].ptr).toBe('smtp.example.com');

    res = await app.call('DELETE', `/v1/servers/${id}/ips/${ip}/ptr`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.ptr).toBeNull();
    expect((await app.call('DELETE', `/v1/servers/${id}/ips/${ip}/ptr`, { key: c.key })).status).toBe(200);

    expect(await events(app, c, 'server.ptr.changed')).toEqual([
      { type: 'server.ptr.changed', data: { serverId: id, ip, ptr: 'mail.example.com' } },
      { type: 'server.ptr.changed', data: { serverId: id, ip, ptr: 'smtp.example.com' } },
      { type: 'server.ptr.changed', data: { serverId: id, ip, ptr: null } },
    ]);
  });

  it('refuses hostnames that are not DNS names, addresses not on the server, and other accounts', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    const ip = (await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key })).body.data[0].ip;
    for (const hostname of [
      '',
      'localhost',
      'has space.example.com',
      '-bad.example.com',
      'a..example.com',
      `${'a'.repeat(64)}.example.com`,
      'http://x.example.com',
      '10.0.0.1',
    ]) {
      expectError(
        await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, { key: c.key, body: { hostname } }),
        400,
        /hostname/,
      );
    }
    expectError(await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, { key: c.key, body: {} }), 400, /hostname/);
    expectError(
      await app.call('PUT', `/v1/servers/${id}/ips/192.0.2.1/ptr`, { key: c.key, body: { hostname: 'a.example.com' } }),
      404,
    );
    const other = await app.customer({ scopes: WRITE });
    expectError(
      await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, { key: other.key, body: { hostname: 'a.example.com' } }),
      404,
    );
    const reader = await app.customer({ scopes: ['servers:read'] });
    expectError(
      await app.call('PUT', `/v1/servers/${id}/ips/${ip}/ptr`, {
        key: reader.key,
        body: { hostname: 'a.example.com' },
      }),
      403,
    );
    expect(await events(app, c, 'server.ptr.changed')).toEqual([]);
  });

  it('an address whose reverse zone is not hosted shows zoneHosted: false and its PTR is refused with a clear 400', async () => {
    const c = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const id = await runningServer(app, c);
    const attach = await app.call('POST', `/v1/servers/${id}/addons`, {
      key: c.key,
      body: { addonId: 'addon-seo-pack' },
    });
    expect(attach.status, attach.text).toBe(200);
    const ips: { ip: string; zoneHosted: boolean }[] = (await app.call('GET', `/v1/servers/${id}/ips`, { key: c.key }))
      .body.data;
    const foreign = ips.filter((ip) => !ip.zoneHosted);
    expect(foreign.length).toBeGreaterThan(0);
    const res = await app.call('PUT', `/v1/servers/${id}/ips/${foreign[0].ip}/ptr`, {
      key: c.key,
      body: { hostname: 'seo.example.com' },
    });
    expectError(res, 400, /not hosted.*zoneHosted: false/);
    expectError(
      await app.call('DELETE', `/v1/servers/${id}/ips/${foreign[0].ip}/ptr`, { key: c.key }),
      400,
      /not hosted/,
    );
    const hosted = ips.find((ip) => ip.zoneHosted && ip.ip !== ips[0].ip)!;
    expect(
      (
        await app.call('PUT', `/v1/servers/${id}/ips/${hosted.ip}/ptr`, {
          key: c.key,
          body: { hostname: 'seo.example.com' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('plan options and change-plan', () => {
  it('lists the current plan and the same family with the same disk size, cheapest first', async () => {
    const c = await app.customer();
    const id = await runningServer(app, c, { productId: 'std-2c-4g-50' });
    const res = await app.call('GET', `/v1/servers/${id}/plan-options`, { key: c.key });
    expect(res.status).toBe(200);
    expect(
      res.body.data.map((p: { productId: string; monthlyUsdCents: number; current: boolean }) => [
        p.productId,
        p.monthlyUsdCents,
        p.current,
      ]),
    ).toEqual([
      ['std-1c-2g-50', 600, false],
      ['std-2c-4g-50', 1200, true],
      ['std-4c-8g-50', 2400, false],
    ]);
    expect(res.body.data.every((p: { diskGb: number; family: string }) => p.diskGb === 50 && p.family === 'std')).toBe(
      true,
    );
  });

  it('changes vCPU/RAM in place: reboot of about a minute, disk unchanged, no money moves, server.resized', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c, { productId: 'std-2c-4g-50' });
    const before = await balance(app, c);
    const renewsAt = (await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.renewsAt;
    expectError(
      await app.call('POST', `/v1/servers/${id}/change-plan`, { key: c.key, body: { productId: 'std-4c-8g-100' } }),
      400,
      /plan options/,
    );
    expectError(
      await app.call('POST', `/v1/servers/${id}/change-plan`, { key: c.key, body: { productId: 'cpu-4c-8g-100' } }),
      400,
    );
    expectError(
      await app.call('POST', `/v1/servers/${id}/change-plan`, { key: c.key, body: { productId: 'std-2c-4g-50' } }),
      400,
      /already/,
    );
    expectError(await app.call('POST', `/v1/servers/${id}/change-plan`, { key: c.key, body: {} }), 400, /productId/);

    const res = await app.call('POST', `/v1/servers/${id}/change-plan`, {
      key: c.key,
      body: { productId: 'std-4c-8g-50' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      productId: 'std-4c-8g-50',
      vcpu: 4,
      ramMb: 8192,
      diskGb: 50,
      status: 'rebooting',
      renewsAt,
    });
    expectError(
      await app.call('POST', `/v1/servers/${id}/change-plan`, { key: c.key, body: { productId: 'std-1c-2g-50' } }),
      409,
      /rebooting/,
    );
    await advance(app, 61);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status).toBe('running');
    // down-switch: no credit either
    const down = await app.call('POST', `/v1/servers/${id}/change-plan`, {
      key: c.key,
      body: { productId: 'std-1c-2g-50' },
    });
    expect(down.body).toMatchObject({ productId: 'std-1c-2g-50', vcpu: 1, ramMb: 2048, diskGb: 50 });
    expect(await balance(app, c)).toBe(before);
    expect(await debits(app, c)).toEqual([]);
    expect(await events(app, c, 'server.resized')).toEqual([
      { type: 'server.resized', data: { serverId: id, productId: 'std-4c-8g-50', vcpu: 4, ramMb: 8192 } },
      { type: 'server.resized', data: { serverId: id, productId: 'std-1c-2g-50', vcpu: 1, ramMb: 2048 } },
    ]);
  });

  it('a stopped server changes plan without rebooting and stays stopped', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c, { productId: 'cpu-2c-4g-100' });
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    const res = await app.call('POST', `/v1/servers/${id}/change-plan`, {
      key: c.key,
      body: { productId: 'cpu-8c-16g-100' },
    });
    expect(res.body).toMatchObject({ status: 'stopped', vcpu: 8, diskGb: 100 });
  });
});

describe('dashboard SSO', () => {
  it("returns a short-lived single-use URL under PUBLIC_BASE_URL; the token is stored hashed, with the caller's scopes", async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const id = await runningServer(app, c);
    const res = await app.call('POST', `/v1/servers/${id}/sso`, { key: c.key, body: {} });
    expect(res.status).toBe(200);
    const m = /^https:\/\/panel\.example\.net\/sso\/(sso_[A-Za-z0-9_-]{43})\?next=(.+)$/.exec(res.body.url);
    expect(m, res.body.url).not.toBeNull();
    expect(decodeURIComponent(m![2])).toBe(`/servers/${id}`);
    const now = app.running.app.clock.now();
    expect(new Date(res.body.expiresAt).getTime() - now.getTime()).toBeLessThanOrEqual(300_000);
    const rows = await app.running.app.prisma.ssoToken.findMany({ where: { serverId: id } });
    expect(JSON.stringify(rows)).not.toContain(m![1]);

    const prisma = app.running.app.prisma;
    expect(await consumeSsoToken(prisma, m![1], now)).toEqual({
      accountId: c.accountId,
      serverId: id,
      next: `/servers/${id}`,
      scopes: ['servers:read'],
    });
    expect(await consumeSsoToken(prisma, m![1], now)).toBeNull();
    expect(await consumeSsoToken(prisma, 'sso_unknown', now)).toBeNull();
  });

  it('expires after 5 simulated minutes; two concurrent redemptions give one session', async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const id = await runningServer(app, c);
    const prisma = app.running.app.prisma;
    const tokenOf = (url: string) => /\/sso\/([^?]+)/.exec(url)![1];
    const a = await app.call('POST', `/v1/servers/${id}/sso`, {
      key: c.key,
      body: { next: '/servers/x/console?tab=1' },
    });
    expect(decodeURIComponent(a.body.url.split('next=')[1])).toBe('/servers/x/console?tab=1');
    await advance(app, 301);
    expect(await consumeSsoToken(prisma, tokenOf(a.body.url), app.running.app.clock.now())).toBeNull();
    const b = await app.call('POST', `/v1/servers/${id}/sso`, { key: c.key });
    const now = app.running.app.clock.now();
    const results = await Promise.all([
      consumeSsoToken(prisma, tokenOf(b.body.url), now),
      consumeSsoToken(prisma, tokenOf(b.body.url), now),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('next must be a relative path: no open redirect', async () => {
    const c = await app.customer({ scopes: ['servers:read'] });
    const id = await runningServer(app, c);
    for (const next of [
      'https://evil.example',
      '//evil.example/x',
      '/\\evil.example',
      'servers/1',
      '/%2F%2Fevil.example',
      '/../admin',
      'javascript:alert(1)',
      '/a b',
    ]) {
      expectError(await app.call('POST', `/v1/servers/${id}/sso`, { key: c.key, body: { next } }), 400, /next/);
    }
    const other = await app.customer();
    expectError(await app.call('POST', `/v1/servers/${id}/sso`, { key: other.key, body: {} }), 404);
    expectError(await app.call('POST', `/v1/servers/${id}/sso`, { body: {} }), 401);
  });
});
