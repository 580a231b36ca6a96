import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('first vertical slice: account and servers end to end', () => {
  it('GET /v1/account returns the profile in the spec fields', async () => {
    const c = await app.customer();
    const res = await app.call('GET', '/v1/account', { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: c.accountId,
      email: expect.stringMatching(/@example\.com$/),
      name: expect.any(String),
      country: 'DE',
      email_verified: false,
      invoice_email: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('a server ordered through the operator API provisions when the simulated clock advances', async () => {
    const c = await app.customer();
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'web-1',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    expect(order.status).toBe(201);
    const id = order.body.id;
    expect(id).toMatch(/^srv_[0-9a-z]{26}$/);

    let detail = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      status: 'provisioning',
      label: 'web-1',
      productId: 'std-2c-4g-50',
      vcpu: 2,
      ramMb: 4096,
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
      ips: [],
    });

    const tick = await app.admin('POST', '/admin/clock/advance', { seconds: 180 });
    expect(tick.status).toBe(200);
    expect(tick.body.jobsRun).toBeGreaterThanOrEqual(1);

    detail = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(detail.body.status).toBe('running');
    expect(detail.body.ips).toEqual([
      { ip: expect.stringMatching(/^198\.1[89]\.\d+\.\d+$/), version: 4, ptr: null, zoneHosted: true, primary: true },
    ]);
    // Scrubbed: nothing of the upstream provider, no provisioning log.
    expect(JSON.stringify(detail.body)).not.toMatch(/node|upstream|provisioningLog|fra1|ams2|lon1/i);

    const list = await app.call('GET', '/v1/servers', { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([id]);

    // The state change and its event committed together (outbox).
    const events = await app.running.app.prisma.event.findMany({ where: { accountId: c.accountId } });
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['server.created', { serverId: id, status: 'running', label: 'web-1' }],
    ]);
  });
});
