import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import { advance, expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('control panel: PHP, logs, stats, certificate, WAF, browser SSH', () => {
  it('PHP version: only versions the plan lists', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/php-version`, { key: c.key, body: { php_version: '7.4' } }),
      400,
      /php_version must be one of 8\.1, 8\.2, 8\.3/,
    );
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/php-version`, { key: c.key, body: { php_version: 8.2 } }),
      400,
    );
    const res = await app.call('PUT', `/v1/hosting/${id}/php-version`, { key: c.key, body: { php_version: '8.1' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id, php_version: '8.1', availableVersions: ['8.1', '8.2', '8.3'] });
    expect((await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).body.php_version).toBe('8.1');
  });

  it("GraphQL reads the versions the plan offers without setting one; REST's account body is unchanged", async () => {
    const c = await app.customer({ scopes: ['hosting:read'] });
    const manager = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, manager);
    const read = await gql(app, 'query($id: ID!) { hostingAccount(id: $id) { phpVersion phpVersionsOffered } }', {
      key: manager.key,
      variables: { id },
    });
    expect(read.body.data.hostingAccount.phpVersionsOffered).toEqual(['8.1', '8.2', '8.3']);
    expect(read.body.data.hostingAccount.phpVersionsOffered).toContain(read.body.data.hostingAccount.phpVersion);
    expect(Object.keys((await app.call('GET', `/v1/hosting/${id}`, { key: manager.key })).body)).not.toContain(
      'phpVersionsOffered',
    );
    // Another account's hosting: not found, as every read of it.
    const other = await gql(app, 'query($id: ID!) { hostingAccount(id: $id) { phpVersionsOffered } }', {
      key: c.key,
      variables: { id },
    });
    expect(other.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('logs: kind access|error, lines bounded; the tail grows with simulated traffic', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    expectError(
      await app.call('GET', `/v1/hosting/${id}/logs?kind=debug`, { key: c.key }),
      400,
      /kind must be access or error/,
    );
    expectError(await app.call('GET', `/v1/hosting/${id}/logs`, { key: c.key }), 400);
    expectError(await app.call('GET', `/v1/hosting/${id}/logs?kind=access&lines=0`, { key: c.key }), 400, /lines/);
    expectError(await app.call('GET', `/v1/hosting/${id}/logs?kind=access&lines=1001`, { key: c.key }), 400, /lines/);
    await advance(app, 600);
    const access = await app.call('GET', `/v1/hosting/${id}/logs?kind=access&lines=5`, { key: c.key });
    expect(access.status, access.text).toBe(200);
    expect(access.body.kind).toBe('access');
    expect(access.body.lines).toHaveLength(5);
    expect(access.body.lines[0]).toMatch(
      /^\d+\.\d+\.\d+\.\d+ - - \[\d{2}\/\w{3}\/\d{4}:[\d:]+ \+0000\] "GET \S+ HTTP\/1\.1" \d{3} \d+/,
    );
    const all = await app.call('GET', `/v1/hosting/${id}/logs?kind=access&lines=1000`, { key: c.key });
    expect(all.body.lines.length).toBeGreaterThanOrEqual(19);
    const errors = await app.call('GET', `/v1/hosting/${id}/logs?kind=error`, { key: c.key });
    expect(errors.body.lines[0]).toMatch(/virtual host .* ready/);
  });

  it('stats and visitor stats (period 24h|7d|30d)', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    await advance(app, 3 * 3600);
    const stats = await app.call('GET', `/v1/hosting/${id}/stats`, { key: c.key });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body).toMatchObject({
      id,
      disk: { usedBytes: expect.any(Number), quotaBytes: 10_240 * 1024 * 1024 },
      inodes: { used: expect.any(Number), quota: 200_000 },
      bandwidth: { usedBytes: expect.any(Number), quotaBytes: 100 * 1024 ** 3 },
      mailboxes: { used: 0, quota: 10 },
      databases: { used: 0, quota: 2 },
    });
    expect(stats.body.disk.usedBytes).toBeGreaterThan(0);
    expect(stats.body.inodes.used).toBeGreaterThanOrEqual(5);
    expect(stats.body.bandwidth.usedBytes).toBeGreaterThan(0);
    for (const [period, points] of [
      ['24h', 24],
      ['7d', 7],
      ['30d', 30],
    ] as const) {
      const res = await app.call('GET', `/v1/hosting/${id}/visitor-stats?period=${period}`, { key: c.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({
        id,
        period,
        visits: expect.any(Number),
        uniqueVisitors: expect.any(Number),
        pageViews: expect.any(Number),
      });
      expect(res.body.series).toHaveLength(points);
      expect(res.body.pageViews).toBeGreaterThan(0);
      expect(res.body.uniqueVisitors).toBeLessThanOrEqual(res.body.visits);
    }
    expectError(
      await app.call('GET', `/v1/hosting/${id}/visitor-stats?period=1y`, { key: c.key }),
      400,
      /period must be 24h, 7d or 30d/,
    );
  });

  it('certificate retry; WAF status and temporary log access on the simulated clock', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const cert = await app.call('POST', `/v1/hosting/${id}/cert/retry`, { key: c.key });
    expect(cert.status, cert.text).toBe(200);
    expect(cert.body).toMatchObject({
      status: 'issued',
      error: null,
      issuedAt: expect.any(String),
      expiresAt: expect.any(String),
    });

    const waf = await app.call('GET', `/v1/hosting/${id}/waf`, { key: c.key });
    expect(waf.body).toMatchObject({
      id,
      enabled: true,
      mode: 'blocking',
      logAccess: { active: false, expiresAt: null },
    });
    expect((await app.call('GET', `/v1/hosting/${id}/waf/access`, { key: c.key })).body).toEqual({
      active: false,
      expiresAt: null,
    });
    const granted = await app.call('POST', `/v1/hosting/${id}/waf/access`, { key: c.key });
    expect(granted.body.active).toBe(true);
    await advance(app, 59 * 60);
    expect((await app.call('GET', `/v1/hosting/${id}/waf/access`, { key: c.key })).body).toEqual(granted.body);
    await advance(app, 2 * 60);
    expect((await app.call('GET', `/v1/hosting/${id}/waf/access`, { key: c.key })).body).toEqual({
      active: false,
      expiresAt: null,
    });
  });

  it('browser SSH: enable, launch (short-lived token), status, expiry, stop', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    expect((await app.call('GET', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key })).body).toEqual({
      enabled: false,
      enabledAt: null,
      session: null,
    });
    expectError(await app.call('POST', `/v1/hosting/${id}/ssh-terminal/launch`, { key: c.key }), 409, /not enabled/);
    const enabled = await app.call('POST', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key });
    expect(enabled.body).toMatchObject({ enabled: true, enabledAt: expect.any(String), session: null });
    const launch = await app.call('POST', `/v1/hosting/${id}/ssh-terminal/launch`, { key: c.key });
    expect(launch.status, launch.text).toBe(200);
    expect(launch.body).toMatchObject({
      sessionId: expect.stringMatching(/^hss_/),
      token: expect.stringMatching(/^sshs_/),
      expiresAt: expect.any(String),
    });
    expect(launch.body.url).toContain(launch.body.sessionId);
    const rows = await app.running.app.prisma.hostingSshSession.findMany({ where: { hostingId: id } });
    expect(JSON.stringify(rows)).not.toContain(launch.body.token);
    expect((await app.call('GET', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key })).body.session).toEqual({
      id: launch.body.sessionId,
      expiresAt: launch.body.expiresAt,
    });
    await advance(app, 16 * 60);
    expect((await app.call('GET', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key })).body.session).toBeNull();
    const second = await app.call('POST', `/v1/hosting/${id}/ssh-terminal/launch`, { key: c.key });
    expect((await app.call('POST', `/v1/hosting/${id}/ssh-terminal/stop`, { key: c.key })).body).toEqual({
      stopped: true,
      sessionId: second.body.sessionId,
    });
    expect((await app.call('POST', `/v1/hosting/${id}/ssh-terminal/stop`, { key: c.key })).body).toEqual({
      stopped: false,
      sessionId: null,
    });
  });
});
