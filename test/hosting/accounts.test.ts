import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryRoutes } from '../../src/http/rest/binary-routes.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { proveDomain } from '../helpers/domains.ts';
import { activeHosting, domainName, fetchBytes, MANAGE, upload } from '../helpers/hosting.ts';
import { advance, events, expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('hosting accounts', () => {
  it('provisions asynchronously, then hosting.created; list and detail are scrubbed; another account gets 404', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const domain = domainName('shop');
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, { domain: domain.toUpperCase() });
    expect(order.status, order.text).toBe(201);
    expect(order.body).toMatchObject({
      id: expect.stringMatching(/^hst_[0-9a-z]{26}$/),
      status: 'provisioning',
      domain,
      productId: 'hosting-starter',
    });
    const id = order.body.id;

    let list = await app.call('GET', '/v1/hosting', { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      data: [{ id, status: 'provisioning', domain }],
      hasMore: false,
      nextCursor: null,
    });
    expectError(await app.call('GET', `/v1/hosting/${id}/files`, { key: c.key }), 409, /provisioning/);
    expect(await events(app, c, 'hosting.created')).toEqual([]);

    await advance(app, 61);
    list = await app.call('GET', '/v1/hosting', { key: c.key });
    expect(list.body.data[0].status).toBe('active');
    expect(await events(app, c, 'hosting.created')).toEqual([
      { type: 'hosting.created', data: { hostingId: id, domain, status: 'active' } },
    ]);

    const detail = await app.call('GET', `/v1/hosting/${id}`, { key: c.key });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      domain,
      status: 'active',
      productId: 'hosting-starter',
      php_version: '8.3',
      customDomain: null,
      ip: expect.stringMatching(/^198\.18\./),
      certificate: { status: 'issued', domains: [domain] },
      connection: {
        sftpPort: 22,
        homeDirectory: '/',
        webRoot: '/public_html',
        mysqlPort: 3306,
        username: expect.stringMatching(/^u[0-9a-z]{10}$/),
      },
    });
    expect(detail.body.connection.databasePrefix).toBe(`${detail.body.connection.username}_`);
    const text = JSON.stringify(detail.body);
    expect(text).not.toMatch(/web-(fra|ams)|node|provisioning ?log|upstream/i);
    expect(text).not.toContain(app.dataDir);

    const other = await app.customer({ scopes: MANAGE });
    expectError(await app.call('GET', `/v1/hosting/${id}`, { key: other.key }), 404);
    expectError(await app.call('GET', `/v1/hosting/${id}/files`, { key: other.key }), 404);
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: other.key, body: { domain: domainName() } }),
      404,
    );
    expect(
      (await fetchBytes(app, other.key, `/v1/hosting/${id}/files/download?path=/public_html/index.html`)).status,
    ).toBe(404);
    expect((await upload(app, other.key, id, { name: 'x.txt', data: Buffer.from('x') })).status).toBe(404);
    expect((await app.call('GET', '/v1/hosting', { key: other.key })).body.data).toEqual([]);
  });

  it('operator order validation: domain, duplicate domain, plan', async () => {
    const c = await app.customer();
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, { domain: 'not a domain' }),
      400,
      /domain/,
    );
    expectError(
      await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, {
        domain: domainName(),
        productId: 'std-1c-2g-50',
      }),
      400,
      /productId/,
    );
    const domain = domainName();
    expect(
      (await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, { domain, productId: 'hosting-business' }))
        .status,
    ).toBe(201);
    expectError(await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, { domain }), 400, /already used/);
    const catalogue = await app.admin('GET', '/admin/catalogue');
    expect(catalogue.body.hostingPlans.map((p: { id: string }) => p.id)).toEqual([
      'hosting-starter',
      'hosting-business',
    ]);
    expect(catalogue.body.hostingPlans[0]).toMatchObject({
      phpVersions: ['8.1', '8.2', '8.3'],
      databases: 2,
      backupsKept: 5,
    });
  });
});

describe('custom domain', () => {
  it('set (validated), verify against the simulated DNS with a clear message until it points here, detach', async () => {
    const c = await app.customer({ scopes: ['hosting:read', 'hosting:write'] });
    const id = await activeHosting(app, c);
    const detail = (await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).body;
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: c.key, body: { domain: 'bad_domain!' } }),
      400,
      /domain/,
    );
    expectError(await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: c.key, body: {} }), 400);
    expectError(await app.call('POST', `/v1/hosting/${id}/custom-domain/verify`, { key: c.key }), 404, /Custom domain/);

    const custom = domainName('www');
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: c.key, body: { domain: custom } }),
      400,
      /needs proof that you control the domain/,
    );
    await proveDomain(app, c.accountId, custom);
    const set = await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key: c.key, body: { domain: custom } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.customDomain).toEqual({ domain: custom, status: 'pending', attachedAt: null });

    let verify = await app.call('POST', `/v1/hosting/${id}/custom-domain/verify`, { key: c.key });
    expectError(
      verify,
      400,
      new RegExp(`${custom.replace(/\./g, '\\.')} has no DNS record yet.*${detail.ip.replace(/\./g, '\\.')}.*CNAME`),
    );

    expect((await app.admin('PUT', `/admin/dns/${custom}`, { target: '203.0.113.9' })).status).toBe(200);
    verify = await app.call('POST', `/v1/hosting/${id}/custom-domain/verify`, { key: c.key });
    expectError(verify, 400, /points to 203\.0\.113\.9, not to this hosting account/);
    expect((await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).body.customDomain.status).toBe('pending');

    // A CNAME chain that ends at the service hostname attaches it.
    expect((await app.admin('PUT', `/admin/dns/${custom}`, { target: `edge.${custom}` })).status).toBe(200);
    expect((await app.admin('PUT', `/admin/dns/edge.${custom}`, { target: detail.connection.host })).status).toBe(200);
    verify = await app.call('POST', `/v1/hosting/${id}/custom-domain/verify`, { key: c.key });
    expect(verify.status, verify.text).toBe(200);
    expect(verify.body.customDomain).toMatchObject({
      domain: custom,
      status: 'attached',
      attachedAt: expect.any(String),
    });
    expect(verify.body.certificate.domains).toEqual([detail.domain, custom]);

    // Another account cannot take the same domain, and is told only that it must prove control.
    const other = await app.customer({ scopes: ['hosting:read', 'hosting:write'] });
    const otherId = await activeHosting(app, other);
    expectError(
      await app.call('PUT', `/v1/hosting/${otherId}/custom-domain`, { key: other.key, body: { domain: custom } }),
      400,
      /^A custom domain for .* needs proof that you control the domain/,
    );

    const del = await app.call('DELETE', `/v1/hosting/${id}/custom-domain`, { key: c.key });
    expect(del.status).toBe(200);
    expect(del.body.customDomain).toBeNull();
    expectError(await app.call('DELETE', `/v1/hosting/${id}/custom-domain`, { key: c.key }), 404);
    expectError(await app.admin('PUT', `/admin/dns/${custom}`, {}), 400, /target/);
    expect((await app.admin('DELETE', `/admin/dns/${custom}`)).body).toEqual({ hostname: custom, target: null });
  });
});

/** Fills path parameters and gives each body operation a syntactically valid body. */
function requestFor(op: { method: string; path: string }, hostingId: string): { path: string; body?: unknown } {
  const path = `/v1${op.path.replace(':id', hostingId).replace(':bid', 'hbk_00000000000000000000000000').replace(':name', 'x_db')}`;
  const bodies: Record<string, unknown> = {
    'PUT /hosting/:id/php-version': { php_version: '8.2' },
    'PUT /hosting/:id/cron': { jobs: [] },
    'POST /hosting/:id/protected-dirs': { path: '/public_html', basic_user: 'a', password: 'password123' },
    'POST /hosting/:id/git/deploy': { repo_url: 'git@example.com:a/b.git' },
    'PUT /hosting/:id/files': { path: '/public_html/a.txt', content: 'a' },
    'POST /hosting/:id/files/mkdir': { path: '/public_html/d' },
    'POST /hosting/:id/files/rename': { from: '/public_html/a', to: '/public_html/b' },
    'POST /hosting/:id/databases': { suffix: 'x' },
  };
  const query: Record<string, string> = {
    'GET /hosting/:id/logs': '?kind=access',
    'GET /hosting/:id/visitor-stats': '?period=24h',
    'GET /hosting/:id/files/read': '?path=/public_html/index.html',
    'DELETE /hosting/:id/files': '?path=/public_html/index.html',
    'DELETE /hosting/:id/protected-dirs': '?path=/public_html',
    'GET /hosting/:id/files/download': '?path=/public_html/index.html',
  };
  const key = `${op.method} ${op.path}`;
  return { path: path + (query[key] ?? ''), body: bodies[key] };
}

describe('scopes', () => {
  const panelOps = [
    ...listOperations(getSchema())
      .filter((op) => op.meta.area === 'hosting' && op.meta.scope === 'hosting:manage')
      .map((op) => ({ method: op.method, path: op.path })),
    ...binaryRoutes()
      .filter((r) => r.area === 'hosting')
      .map((r) => ({ method: r.method, path: r.path })),
  ];

  it('covers the 42 control-panel operations', () => {
    expect(panelOps).toHaveLength(42);
  });

  it('hosting:read + hosting:write without hosting:manage gets 403 on every control-panel operation; nothing changes', async () => {
    const owner = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, owner);
    const key = (
      await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, {
        scopes: ['hosting:read', 'hosting:write'],
      })
    ).body.key;
    for (const op of panelOps) {
      const req = requestFor(op, id);
      const res = op.path.endsWith('/files/upload')
        ? await upload(app, key, id, { name: 'x.txt', data: Buffer.from('x') })
        : await app.call(op.method, req.path, { key, body: req.body });
      expect(res.status, `${op.method} ${op.path}: ${res.text}`).toBe(403);
      expect(res.body, `${op.method} ${op.path}`).toEqual({
        statusCode: 403,
        message: 'This credential lacks the scope "hosting:manage".',
        error: 'Forbidden',
        code: 'FORBIDDEN',
      });
    }
    // The same requests with the manage scope run (proof the loop hit real routes).
    expect((await app.call('GET', `/v1/hosting/${id}/files`, { key: owner.key })).status).toBe(200);
    expect(
      (await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/index.html`, { key: owner.key })).status,
    ).toBe(200);
    // hosting:write works where it is the scope; hosting:read alone does not.
    const custom = domainName();
    await proveDomain(app, owner.accountId, custom);
    expect((await app.call('PUT', `/v1/hosting/${id}/custom-domain`, { key, body: { domain: custom } })).status).toBe(
      200,
    );
    const readOnly = (
      await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, { scopes: ['hosting:read'] })
    ).body.key;
    expectError(await app.call('DELETE', `/v1/hosting/${id}/custom-domain`, { key: readOnly }), 403, /hosting:write/);
    expect((await app.call('GET', `/v1/hosting/${id}`, { key: readOnly })).status).toBe(200);
  });

  it('binary routes: 401 without a credential, 404/405 around them', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const anon = await fetch(`${app.url}/v1/hosting/${id}/files/download?path=/public_html/index.html`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({
      statusCode: 401,
      message: expect.any(String),
      error: 'Unauthorized',
      code: 'UNAUTHENTICATED',
    });
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const noAuthUpload = await fetch(`${app.url}/v1/hosting/${id}/files/upload`, {
      method: 'POST',
      body: new FormData(),
    });
    expect(noAuthUpload.status).toBe(401);

    let res = await app.call('POST', `/v1/hosting/${id}/files/download`, { key: c.key });
    expectError(res, 405);
    expect(res.headers.get('allow')).toBe('GET');
    res = await app.call('GET', `/v1/hosting/${id}/files/upload`, { key: c.key });
    expectError(res, 405);
    expect(res.headers.get('allow')).toBe('POST');
    res = await app.call('PATCH', `/v1/hosting/${id}/files`, { key: c.key, body: {} });
    expectError(res, 405);
    expect(res.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT']);
    expectError(await app.call('GET', `/v1/hosting/${id}/files/nope`, { key: c.key }), 404);
    expectError(await app.call('GET', `/v1/hosting/${id}/backups/hbk_x/download/more`, { key: c.key }), 404);
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/download?path=/public_html/index.html&extra=1`, { key: c.key }),
      400,
      /extra/,
    );
    expectError(await app.call('GET', `/v1/hosting/${id}/files/download`, { key: c.key }), 400, /path is required/);
    expectError(
      await app.call('GET', `/v1/hosting/${id}/backups/hbk_00000000000000000000000000/download`, { key: c.key }),
      404,
      /Backup/,
    );
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  });
});
