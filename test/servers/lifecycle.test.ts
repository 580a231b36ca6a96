import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerServerLog } from '../../src/provider/simulated.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { advance, events, expectError, runningServer } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const WRITE = ['servers:read', 'servers:write'];

describe('server reads', () => {
  it('lists and details servers, scrubbed of provider internals; another account gets 404', async () => {
    const c = await app.customer();
    const id = await runningServer(app, c, { label: 'db-1' });
    const detail = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      status: 'running',
      label: 'db-1',
      productId: 'std-2c-4g-50',
      vcpu: 2,
      ramMb: 4096,
      diskGb: 50,
      poolId: null,
    });
    expect(detail.body.renewsAt).toMatch(/Z$/);
    expect(JSON.stringify(detail.body)).not.toMatch(/node|upstream|provisioningLog|log/i);
    const other = await app.customer();
    expectError(await app.call('GET', `/v1/servers/${id}`, { key: other.key }), 404);
    expectError(await app.call('GET', `/v1/servers/${id}/stats`, { key: other.key }), 404);
  });

  it('stats: CPU, memory, network and disk; zero load when stopped', async () => {
    const c = await app.customer();
    const id = await runningServer(app, c);
    const res = await app.call('GET', `/v1/servers/${id}/stats`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      serverId: id,
      status: 'running',
      memory: { totalMb: 4096 },
      disk: { totalGb: 50 },
    });
    expect(res.body.cpu.percent).toBeGreaterThan(0);
    expect(res.body.memory.usedMb).toBeGreaterThan(0);
    expect(res.body.network.rxBytesPerSecond).toBeGreaterThan(0);
    expect(res.body.disk.usedGb).toBeGreaterThan(0);
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    const off = await app.call('GET', `/v1/servers/${id}/stats`, { key: c.key });
    expect(off.body).toMatchObject({
      status: 'stopped',
      cpu: { percent: 0 },
      memory: { usedMb: 0 },
      network: { rxBytesPerSecond: 0, txBytesPerSecond: 0 },
    });
  });
});

describe('power', () => {
  it('start, stop, reboot; reboot keeps the server rebooting for about a minute; events fire', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    let res = await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('stopped');
    // stop of a stopped server: 200, unchanged, no event
    res = await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('stopped');
    expectError(await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key }), 409);
    res = await app.call('POST', `/v1/servers/${id}/power/start`, { key: c.key });
    expect(res.body.status).toBe('running');
    res = await app.call('POST', `/v1/servers/${id}/power/reboot`, { key: c.key });
    expect(res.body.status).toBe('rebooting');
    expectError(await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key }), 409, /rebooting/);
    await advance(app, 30);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status).toBe('rebooting');
    await advance(app, 31);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status).toBe('running');
    expect((await events(app, c, 'server.power.changed')).map((e) => e.data.action)).toEqual([
      'stop',
      'start',
      'reboot',
    ]);
  });

  it('an action other than start, stop or reboot is a 400; a provisioning server answers 409', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    expectError(await app.call('POST', `/v1/servers/${id}/power/hibernate`, { key: c.key }), 400);
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'new',
      osTemplate: 'debian-12',
    });
    expectError(await app.call('POST', `/v1/servers/${order.body.id}/power/stop`, { key: c.key }), 409, /provisioning/);
  });
});

describe('snapshots', () => {
  it('create (Idempotency-Key), list, delete without touching the live disk, revert needs servers:destroy', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    const headers = { 'Idempotency-Key': 'snap-1' };
    const a = await app.call('POST', `/v1/servers/${id}/snapshots`, {
      key: c.key,
      body: { name: 'before upgrade', description: 'pre' },
      headers,
    });
    expect(a.status).toBe(200);
    const b = await app.call('POST', `/v1/servers/${id}/snapshots`, {
      key: c.key,
      body: { name: 'before upgrade', description: 'pre' },
      headers,
    });
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const second = await app.call('POST', `/v1/servers/${id}/snapshots`, { key: c.key, body: { name: 'second' } });
    expect(
      (await app.call('GET', `/v1/servers/${id}/snapshots`, { key: c.key })).body.data.map((s: { id: string }) => s.id),
    ).toEqual([second.body.id, a.body.id]);

    expectError(await app.call('POST', `/v1/servers/${id}/snapshots/${a.body.id}/revert`, { key: c.key }), 403);

    const del = await app.call('DELETE', `/v1/servers/${id}/snapshots/${second.body.id}`, { key: c.key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: second.body.id, deleted: true });
    const server = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(server.body).toMatchObject({ status: 'running', diskGb: 50, osTemplate: 'ubuntu-24.04' });
    expectError(await app.call('DELETE', `/v1/servers/${id}/snapshots/${second.body.id}`, { key: c.key }), 404);
    expect((await app.call('GET', `/v1/servers/${id}/snapshots`, { key: c.key })).body.data).toHaveLength(1);
  });

  it('revert rolls the disk back: restoring for about a minute, then the state it had', async () => {
    const c = await app.customer({ scopes: [...WRITE, 'servers:destroy'] });
    const id = await runningServer(app, c);
    const snap = await app.call('POST', `/v1/servers/${id}/snapshots`, { key: c.key, body: { name: 'base' } });
    const res = await app.call('POST', `/v1/servers/${id}/snapshots/${snap.body.id}/revert`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('restoring');
    expectError(await app.call('POST', `/v1/servers/${id}/snapshots/${snap.body.id}/revert`, { key: c.key }), 409);
    await advance(app, 61);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status).toBe('running');
    expectError(await app.call('POST', `/v1/servers/${id}/snapshots/snap_nope/revert`, { key: c.key }), 404);
  });
});

describe('reinstall', () => {
  it('wipes and rebuilds from the template; server.reinstalled when done; Idempotency-Key; unknown template 400', async () => {
    const c = await app.customer({ scopes: [...WRITE, 'servers:destroy'] });
    const id = await runningServer(app, c);
    expectError(
      await app.call('POST', `/v1/servers/${id}/reinstall`, { key: c.key, body: { osTemplate: 'plan9' } }),
      400,
      /osTemplate/,
    );
    expectError(
      await app.call('POST', `/v1/servers/${id}/reinstall`, {
        key: c.key,
        body: { osTemplate: 'debian-12', os: 'windows' },
      }),
      400,
      /os must be/,
    );
    expectError(await app.call('POST', `/v1/servers/${id}/reinstall`, { key: c.key, body: {} }), 400, /osTemplate/);
    const writeOnly = await app.customer({ scopes: WRITE });
    expectError(
      await app.call('POST', `/v1/servers/${id}/reinstall`, { key: writeOnly.key, body: { osTemplate: 'debian-12' } }),
      403,
    );

    const headers = { 'Idempotency-Key': 'reinstall-1' };
    const res = await app.call('POST', `/v1/servers/${id}/reinstall`, {
      key: c.key,
      body: { osTemplate: 'debian-12', os: 'linux' },
      headers,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'reinstalling', os: 'linux', osTemplate: 'debian-12' });
    const again = await app.call('POST', `/v1/servers/${id}/reinstall`, {
      key: c.key,
      body: { osTemplate: 'debian-12', os: 'linux' },
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await events(app, c, 'server.reinstalled')).toEqual([]);
    await advance(app, 91);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body.status).toBe('running');
    expect(await events(app, c, 'server.reinstalled')).toEqual([
      { type: 'server.reinstalled', data: { serverId: id, os: 'linux', osTemplate: 'debian-12' } },
    ]);
    expect(await providerServerLog(app.running.app.prisma, id)).toMatch(/disk wiped/);
  });
});

describe('password reset', () => {
  it('returns a new root password once, under servers:write; a stopped server answers 409', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    const a = await app.call('POST', `/v1/servers/${id}/password-reset`, { key: c.key });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      serverId: id,
      username: 'root',
      rootPassword: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
    });
    const b = await app.call('POST', `/v1/servers/${id}/password-reset`, { key: c.key });
    expect(b.body.rootPassword).not.toBe(a.body.rootPassword);
    expect(await providerServerLog(app.running.app.prisma, id)).not.toContain(a.body.rootPassword);
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: c.key });
    expectError(await app.call('POST', `/v1/servers/${id}/password-reset`, { key: c.key }), 409);
    const reader = await app.customer({ scopes: ['servers:read'] });
    expectError(await app.call('POST', `/v1/servers/${id}/password-reset`, { key: reader.key }), 403);
  });
});

describe('termination and suspension', () => {
  it('DELETE needs servers:destroy, is permanent and fires server.terminated', async () => {
    const c = await app.customer({ scopes: [...WRITE, 'servers:destroy'] });
    const id = await runningServer(app, c);
    const writeOnly = await app.customer({ scopes: WRITE });
    expectError(await app.call('DELETE', `/v1/servers/${id}`, { key: writeOnly.key }), 403);
    const res = await app.call('DELETE', `/v1/servers/${id}`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'terminated' });
    expectError(await app.call('GET', `/v1/servers/${id}`, { key: c.key }), 404);
    expectError(await app.call('DELETE', `/v1/servers/${id}`, { key: c.key }), 404);
    expect((await app.call('GET', '/v1/servers', { key: c.key })).body.data).toEqual([]);
    expect(await events(app, c, 'server.terminated')).toEqual([{ type: 'server.terminated', data: { serverId: id } }]);
    expect(await app.running.app.prisma.serverIp.count({ where: { serverId: id } })).toBe(0);
  });

  it('a server terminated while provisioning stays terminated and never fires server.created', async () => {
    const c = await app.customer({ scopes: [...WRITE, 'servers:destroy'] });
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'oops',
      osTemplate: 'debian-12',
    });
    expect((await app.call('DELETE', `/v1/servers/${order.body.id}`, { key: c.key })).status).toBe(200);
    await advance(app, 180);
    expect(await events(app, c)).toEqual([{ type: 'server.terminated', data: { serverId: order.body.id } }]);
  });

  it('operator suspension: suspended with a reason, server.suspended once, power refused', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    expect((await app.admin('POST', `/admin/servers/${id}/suspend`, {})).status).toBe(400);
    const res = await app.admin('POST', `/admin/servers/${id}/suspend`, { reason: 'expired' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: 'suspended', suspendReason: 'expired' });
    expect((await app.admin('POST', `/admin/servers/${id}/suspend`, { reason: 'expired' })).status).toBe(200);
    expect(await events(app, c, 'server.suspended')).toEqual([
      { type: 'server.suspended', data: { serverId: id, reason: 'expired' } },
    ]);
    expect((await app.call('GET', `/v1/servers/${id}`, { key: c.key })).body).toMatchObject({
      status: 'suspended',
      suspendReason: 'expired',
    });
    expectError(await app.call('POST', `/v1/servers/${id}/power/start`, { key: c.key }), 409, /suspended/);
    expect((await app.admin('POST', '/admin/servers/srv_unknown/suspend', { reason: 'x' })).status).toBe(404);
  });
});
