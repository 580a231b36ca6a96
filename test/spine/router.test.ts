import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { noRoute, Router } from '../../src/http/request/router.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';

describe('the one path matcher (src/http/request/router.ts)', () => {
  const router = new Router(
    [
      { method: 'GET', path: '/servers/:id' },
      { method: 'POST', path: '/servers/:id/power/:action' },
      { method: 'DELETE', path: '/servers/:id' },
    ],
    '/v1',
  );

  it('finds a route with its decoded parameters, a trailing slash allowed', () => {
    expect(router.match('POST', '/v1/servers/srv%5F1/power/start/')).toEqual({
      kind: 'found',
      route: { method: 'POST', path: '/servers/:id/power/:action' },
      params: { id: 'srv_1', action: 'start' },
    });
  });

  it('a known path with another method → 405 naming the methods; an unknown path or one outside the base → 404', () => {
    const wrong = router.match('PUT', '/v1/servers/x');
    expect(wrong).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'DELETE'] });
    const error = noRoute(wrong as Exclude<typeof wrong, { kind: 'found' }>, 'PUT', '/v1/servers/x');
    expect(error.status).toBe(405);
    expect((error.extensions.http as { headers: Record<string, string> }).headers.Allow).toBe('GET, DELETE');
    expect(router.match('GET', '/v1/servers/x/nothing')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/v2/servers/x')).toEqual({ kind: 'not-found' });
  });

  it('a fixed segment wins over a parameter in the same place, whatever the order declared', () => {
    const pools = new Router(
      [
        { method: 'GET', path: '/pools/:id' },
        { method: 'GET', path: '/pools/catalogue' },
      ],
      '/v1',
    );
    expect(pools.match('GET', '/v1/pools/catalogue')).toMatchObject({
      kind: 'found',
      route: { path: '/pools/catalogue' },
    });
    expect(pools.match('GET', '/v1/pools/pool_1')).toMatchObject({
      kind: 'found',
      route: { path: '/pools/:id' },
      params: { id: 'pool_1' },
    });
  });

  it('a path is tried against the routes of its first segment and those starting with a parameter, fixed ones first', () => {
    const mixed = new Router(
      [
        { method: 'GET', path: '/:tenant/status' },
        { method: 'GET', path: '/pools/status' },
        { method: 'POST', path: '/:tenant/status' },
        { method: 'GET', path: '/' },
      ],
      '/v1',
    );
    expect(mixed.match('GET', '/v1/pools/status')).toMatchObject({ kind: 'found', route: { path: '/pools/status' } });
    expect(mixed.match('GET', '/v1/acme/status')).toMatchObject({
      kind: 'found',
      route: { path: '/:tenant/status' },
      params: { tenant: 'acme' },
    });
    expect(mixed.match('PUT', '/v1/pools/status')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'POST'] });
    expect(mixed.match('GET', '/v1/')).toMatchObject({ kind: 'found', route: { path: '/' } });
    expect(mixed.match('GET', '/v1/pools')).toEqual({ kind: 'not-found' });
  });

  it('keeps a parameter that is not valid percent-encoding as sent (the operation refuses the value)', () => {
    expect(router.match('GET', '/v1/servers/%E0%A4%A')).toMatchObject({ kind: 'found', params: { id: '%E0%A4%A' } });
  });
});

// The matched operation's compiled document runs through the one executor (src/http/executor/):
// sofa's own router is never asked, so the app's match is the only one.
describe('one match per request', () => {
  let app: TestApp;
  let c: Customer;
  beforeAll(async () => {
    app = await startTestApp();
    c = await app.customer();
  });
  afterAll(() => app?.stop());

  async function matchesFor(send: () => Promise<{ status: number }>, status: number): Promise<number> {
    const spy = vi.spyOn(Router.prototype, 'match');
    try {
      expect((await send()).status).toBe(status);
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('REST operations, binary streams, 404s and 405s, the operator API and OAuth each match their path once', async () => {
    expect(await matchesFor(() => app.call('GET', '/v1/servers', { key: c.key }), 200)).toBe(1);
    expect(await matchesFor(() => app.call('GET', '/v1/servers/srv_missing', { key: c.key }), 404)).toBe(1);
    expect(await matchesFor(() => app.call('GET', '/v1/pools/catalogue', { key: c.key }), 200)).toBe(1);
    expect(
      await matchesFor(() => app.call('GET', '/v1/hosting/hst_missing/files/download?path=/x', { key: c.key }), 404),
    ).toBe(1);
    expect(await matchesFor(() => app.call('GET', '/v1/nothing/here', { key: c.key }), 404)).toBe(1);
    expect(await matchesFor(() => app.call('PUT', '/v1/servers', { key: c.key }), 405)).toBe(1);
    expect(await matchesFor(() => app.admin('GET', '/admin/catalogue'), 200)).toBe(1);
    expect(await matchesFor(() => fetch(`${app.url}/.well-known/oauth-authorization-server`), 200)).toBe(1);
  });
});
