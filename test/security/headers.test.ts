import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type Customer, type TestApp } from '../helpers/app.ts';

/**
 * OWASP API8 (security misconfiguration), headers on every surface: no X-Powered-By, nosniff,
 * and no CORS anywhere (docs/REFERENCE.md: Security — the API is called server-to-server with Bearer
 * credentials and the dashboard is same-origin; yoga's default CORS, which reflected any
 * Origin with credentials allowed on /graphql and /v1, is off). The dashboard's CSP, framing
 * and HSTS rules are tested in test/dashboard/security.test.ts; here: CSP without inline
 * script on every page, and no HSTS over http.
 */
let app: TestApp;
let c: Customer;
const EVIL = 'https://evil.example';

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer();
});
afterAll(() => app?.stop());

function surfaces(): { name: string; method: string; path: string; headers?: Record<string, string>; body?: string }[] {
  const bearer = { Authorization: `Bearer ${c.key}` };
  const json = { 'Content-Type': 'application/json' };
  return [
    { name: 'REST', method: 'GET', path: '/v1/account', headers: bearer },
    { name: 'REST error', method: 'GET', path: '/v1/account' },
    { name: 'REST unknown route', method: 'GET', path: '/v1/nope', headers: bearer },
    { name: 'OpenAPI', method: 'GET', path: '/v1/openapi.json' },
    {
      name: 'GraphQL',
      method: 'POST',
      path: '/graphql',
      headers: { ...bearer, ...json },
      body: '{"query":"{ account { id } }"}',
    },
    { name: 'GraphQL error', method: 'POST', path: '/graphql', headers: json, body: '{"query":"{ account { id } }"}' },
    {
      name: 'MCP',
      method: 'POST',
      path: '/mcp',
      headers: { ...bearer, ...json, Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
    { name: 'MCP error', method: 'POST', path: '/mcp', headers: json, body: '{}' },
    {
      name: 'OAuth token',
      method: 'POST',
      path: '/oauth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=x&client_id=svc-cli',
    },
    { name: 'OAuth metadata', method: 'GET', path: '/.well-known/oauth-authorization-server' },
    { name: 'admin', method: 'GET', path: '/admin/catalogue', headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
    { name: 'admin error', method: 'GET', path: '/admin/catalogue' },
    { name: 'dashboard page', method: 'GET', path: '/', headers: { Accept: 'text/html' } },
    { name: 'dashboard API', method: 'GET', path: '/dashboard/api/session' },
    { name: 'SSO landing', method: 'GET', path: '/sso/nope', headers: { Accept: 'text/html' } },
    { name: 'API reference', method: 'GET', path: '/docs', headers: { Accept: 'text/html' } },
    { name: 'API reference asset', method: 'GET', path: '/docs/assets/graphql-ws.js' },
    { name: 'GraphiQL', method: 'GET', path: '/graphql', headers: { Accept: 'text/html' } },
    { name: 'health', method: 'GET', path: '/healthz' },
    { name: 'ready', method: 'GET', path: '/readyz' },
    { name: 'metrics', method: 'GET', path: '/metrics', headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
    { name: 'metrics error', method: 'GET', path: '/metrics' },
  ];
}

describe('every surface', () => {
  it('sends no X-Powered-By, sends nosniff, and no CORS header to a foreign Origin', async () => {
    const failures: string[] = [];
    for (const s of surfaces()) {
      const res = await fetch(app.url + s.path, {
        method: s.method,
        headers: { ...s.headers, Origin: EVIL },
        body: s.body,
      });
      await res.arrayBuffer();
      const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
      if (res.headers.has('x-powered-by')) failures.push(`${s.name}: X-Powered-By`);
      if (res.headers.get('x-content-type-options') !== 'nosniff') failures.push(`${s.name}: no nosniff`);
      if (cors.length) failures.push(`${s.name} (${res.status}): ${cors.join(', ')}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers a CORS preflight from a foreign Origin without any Access-Control-Allow-* header', async () => {
    const failures: string[] = [];
    for (const path of [
      '/graphql',
      '/v1/account',
      '/v1/servers',
      '/mcp',
      '/oauth/token',
      '/admin/accounts',
      '/dashboard/api/keys',
    ]) {
      const res = await fetch(app.url + path, {
        method: 'OPTIONS',
        headers: {
          Origin: EVIL,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      await res.arrayBuffer();
      const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
      if (cors.length) failures.push(`${path} (${res.status}): ${cors.join(', ')}`);
      if (res.status < 400) failures.push(`${path}: preflight answered ${res.status}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('dashboard pages', () => {
  it('carry a CSP without inline script or style, frame-ancestors none, and no HSTS over http', async () => {
    for (const path of ['/', '/keys', '/webhooks', '/sign-in', '/sso/nope']) {
      const res = await fetch(app.url + path, { headers: { Accept: 'text/html' } });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toMatch(/script-src 'self'(;|$)/);
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(csp, path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
      const html = await res.text();
      expect(html, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    }
  });
});
