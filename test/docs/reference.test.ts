import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt, hasChromium, launchBrowser, screenshot, type Browser } from '../helpers/browser.ts';

/** The API reference at /docs (src/http/pages/docs.ts): Redoc's bundle from node_modules, under the CSP. */
let app: TestApp;

beforeAll(async () => {
  // The pages link the dashboard's favicon.
  ensureDashboardBuilt();
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

/** The CSP's directives by name. */
function directives(csp: string | null): Record<string, string[]> {
  expect(csp, 'Content-Security-Policy header').toBeTruthy();
  return Object.fromEntries(
    csp!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );
}

describe('/docs over HTTP', () => {
  it('is a page under the dashboard CSP, with a style nonce that matches its <meta> and nothing looser', async () => {
    const res = await fetch(`${app.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const csp = directives(res.headers.get('content-security-policy'));
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['connect-src'][0]).toBe("'self'");
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['style-src-attr']).toBeUndefined();
    const nonce = /<meta property="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
    expect(csp['style-src']).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(csp['font-src']).toEqual(["'self'", 'data:']);
    expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-(inline|eval)/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    // A fresh nonce per response.
    const again = await (await fetch(`${app.url}/docs`)).text();
    expect(/<meta property="csp-nonce" content="([^"]+)">/.exec(again)?.[1]).not.toBe(nonce);
    // No inline script: every script is a file of this origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const src of [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]))
      expect(src).toMatch(/^\/docs\/assets\//);
  });

  it('leads /redoc and /swagger to /docs', async () => {
    for (const path of ['/redoc', '/swagger', '/swagger/']) {
      const res = await fetch(`${app.url}${path}`, { redirect: 'manual', headers: { Accept: 'text/html' } });
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location')).toBe('/docs');
    }
  });

  it('serves its assets from node_modules with a validator, gzip when asked, and 404 for others', async () => {
    const res = await fetch(`${app.url}/docs/assets/redoc.standalone.js`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = await res.text();
    // The bundle's CDN logo is answered here instead.
    expect(body).not.toContain('cdn.redoc.ly');
    expect(body).toContain('/docs/assets/redocly-logo-full.svg');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const revalidated = await fetch(`${app.url}/docs/assets/redoc.standalone.js`, {
      headers: { 'If-None-Match': etag! },
    });
    expect(revalidated.status).toBe(304);
    // Without gzip: the same bytes, uncompressed.
    const plain = await fetch(`${app.url}/docs/assets/redoc.standalone.js`, {
      headers: { 'Accept-Encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(body);
    const logo = await fetch(`${app.url}/docs/assets/redocly-logo-full.svg`);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');

    const unknown = await fetch(`${app.url}/docs/assets/..%2F..%2Fpackage.json`);
    expect(unknown.status).toBe(404);
    const missing = await fetch(`${app.url}/docs/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('NOT_FOUND');
    const post = await fetch(`${app.url}/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('the OpenAPI document explains the API once', () => {
  it('has a licence, a description of each shared convention and a described tag for every tag used', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    expect(doc.info.license.name).toBeTruthy();
    for (const heading of [
      'Authentication',
      'Scopes',
      'Rate limits',
      'Idempotency',
      'Errors',
      'Pagination',
      'Webhooks and their signature',
    ]) {
      expect(doc.info.description).toContain(`\n## ${heading}\n`);
    }
    for (const needle of [
      'X-RateLimit-Reset',
      'Retry-After',
      'Idempotency-Key',
      'Idempotent-Replayed',
      '"statusCode"',
      'nextCursor',
      'hasMore',
      'X-Service-Signature',
      'constructEvent',
      'servers:destroy',
    ]) {
      expect(doc.info.description).toContain(needle);
    }
    const declared = new Map<string, string>(
      doc.tags.map((t: { name: string; description: string }) => [t.name, t.description]),
    );
    const used = new Set<string>(
      Object.values<Record<string, { tags: string[] }>>(doc.paths).flatMap((ops) =>
        Object.values(ops).flatMap((op: { tags: string[] }) => op.tags),
      ),
    );
    expect([...used].filter((t) => !declared.has(t))).toEqual([]);
    expect([...declared.keys()].filter((t) => !used.has(t))).toEqual([]);
    for (const [name, description] of declared) expect(description.length, name).toBeGreaterThan(20);
  });
});

describe.skipIf(!hasChromium)('/docs in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders the reference from /v1/openapi.json with every request to this origin and no console error', async () => {
    const { page } = browser;
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(`${app.url}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // The document's own description: the conventions, rendered as sections.
    await page.locator('h2', { hasText: /^Idempotency$/ }).waitFor({ timeout: 20_000 });
    // The servers tag from the menu: its operations, by the summary the document gives them.
    const listServers = (await app.call('GET', '/v1/openapi.json')).body.paths['/servers'].get.summary;
    await page
      .locator('[data-component-name="Menu/MenuItem"]', { hasText: /^servers/ })
      .first()
      .click();
    await page.getByText(listServers, { exact: true }).first().waitFor();
    // Let late requests (fonts, images, telemetry) happen before judging them.
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'docs-reference');
    expect(requests.filter((url) => !url.startsWith(`${app.url}/`))).toEqual([]);
    expect(requests).toContain(`${app.url}/v1/openapi.json`);
    expect(errors).toEqual([]);
  });
});
