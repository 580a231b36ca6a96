import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt, hasChromium, launchBrowser, screenshot, type Browser } from '../helpers/browser.ts';

/** GraphiQL at /graphql for a browser (src/http/pages/docs.ts, src/http/pages/graphiql-start.js). */
let app: TestApp;
let customer: Customer;

beforeAll(async () => {
  // The page links the dashboard's favicon.
  ensureDashboardBuilt();
  app = await startTestApp();
  customer = await app.customer();
});
afterAll(async () => {
  await app?.stop();
});

describe('/graphql for a browser, over HTTP', () => {
  it('answers GraphiQL to a GET accepting HTML, under the CSP, with its assets from this server', async () => {
    const res = await fetch(`${app.url}/graphql`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    const nonce = /<meta property="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}';`);
    // Monaco's style attributes: allowed on this page only (not <style> elements).
    expect(csp).toContain("style-src-attr 'unsafe-inline';");
    const config = JSON.parse(/<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(html)![1]);
    expect(JSON.parse(config.graphiql.headers)).toEqual({ Authorization: 'Bearer <your key>' });
    const assets = [
      ...[...html.matchAll(/<(?:script|link)[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
      ...Object.values(config.workers as Record<string, string>),
    ];
    expect(assets.length).toBeGreaterThan(5);
    for (const asset of assets) {
      expect(asset).toMatch(/^\//);
      const got = await fetch(`${app.url}${asset}`);
      expect(got.status, asset).toBe(200);
      await got.arrayBuffer();
    }
  });

  it('still answers JSON clients as before', async () => {
    const get = await app.call('GET', `/graphql?query=${encodeURIComponent('{ account { id } }')}`, {
      key: customer.key,
      headers: { Accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(get.body.data.account.id).toBe(customer.accountId);
    const post = await app.call('POST', '/graphql', { key: customer.key, body: { query: '{ account { id } }' } });
    expect(post.body.data.account.id).toBe(customer.accountId);
    // A GET with no Accept is not a browser: no page.
    const plain = await fetch(`${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(plain.headers.get('content-type')).toMatch(/json/);
  });
});

/** Replaces the text of one of GraphiQL's Monaco editors (typed as is: no auto-closed brackets). */
async function fill(page: Page, editor: string, text: string): Promise<void> {
  await page.locator(editor).first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const QUERY_EDITOR = '.graphiql-query-editor .monaco-editor';
const HEADERS_EDITOR = '.monaco-editor[data-uri*="headers"]';

describe.skipIf(!hasChromium)('GraphiQL in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = browser.page;
    page.on('request', (r) => requests.push(r.url()));
    page.on('websocket', (ws) => requests.push(ws.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.url}/graphql`);
    await page.locator(QUERY_EDITOR).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const run = () => page.getByRole('button', { name: /^Execute query/ }).click();
  const response = () => page.locator('.graphiql-response');

  it('runs a query with the Authorization header set in the headers editor', async () => {
    await fill(page, HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${customer.key}` }));
    await fill(page, QUERY_EDITOR, '{ account { id } }');
    await run();
    await response().getByText(customer.accountId).waitFor();
  });

  it('shows the schema descriptions in the docs explorer (introspection with the key)', async () => {
    const introspections: string[] = [];
    const listener = (r: { postData(): string | null; headers(): Record<string, string> }) => {
      if (r.postData()?.includes('__schema')) introspections.push(r.headers().authorization);
    };
    page.on('request', listener);
    await page.getByRole('button', { name: /^Re-fetch GraphQL schema/ }).click();
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).click();
    // The `account` root field and its description, from the schema.
    await page
      .locator('.graphiql-doc-explorer')
      .getByText('The profile of the account the credential belongs to: name, e-mail, country and when it was created.')
      .first()
      .waitFor();
    page.off('request', listener);
    expect(introspections).toContain(`Bearer ${customer.key}`);
    await screenshot(page, 'graphiql-docs');
    await page.getByRole('button', { name: 'Hide Documentation Explorer' }).click();
  });

  it('runs a subscription over graphql-ws and shows an event when one happens', async () => {
    await fill(page, QUERY_EDITOR, 'subscription { events(types: ["ticket.created"]) { id type } }');
    await run();
    // The page cannot tell when the server has registered the subscription: open tickets
    // through the REST API until one's event shows.
    await expect
      .poll(
        async () => {
          const ticket = await app.call('POST', '/v1/tickets', {
            key: customer.key,
            body: { subject: 'From GraphiQL', message: 'An event, please.' },
          });
          expect(ticket.status, ticket.text).toBe(200);
          return response().getByText('ticket.created').count();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    expect(requests).toContain(`${app.url.replace(/^http/, 'ws')}/graphql`);
    await screenshot(page, 'graphiql-subscription');
  });

  it('made every request to this origin, with no console error', () => {
    const origin = app.url.replace(/^http:\/\//, '');
    expect(
      requests.filter((url) => !url.startsWith(`http://${origin}/`) && !url.startsWith(`ws://${origin}/`)),
    ).toEqual([]);
    expect(errors).toEqual([]);
  });
});
