import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { App } from '../../app-services.ts';
import { ApiError } from '../../errors.ts';
import { escapeHtml, securityHeaders } from '../dashboard/html.ts';
import { requestScope } from '../request/request-scope.ts';
import { noRoute, Router } from '../request/router.ts';
import { servedFilePath } from '../served-files.ts';

/**
 * The human front door of the API: the reference at /docs (Redoc's standalone bundle rendering
 * /v1/openapi.json) and GraphiQL at /graphql for a browser (yoga's GraphiQL build). Every asset
 * comes from its npm package (copied beside the bundle by the build: src/http/served-files.ts) through
 * /docs/assets/<name>, nothing from a CDN, so both pages work
 * with the network closed. Both keep the dashboard's CSP (no inline script, no eval), adding for
 * their own response only: a style nonce for the styles the libraries inject at run time
 * (styled-components in Redoc reads it from `<meta property="csp-nonce">`; graphiql-start.js
 * hands it to Monaco's <style>), `data:` fonts, and on GraphiQL's page style attributes (Monaco
 * renders its lines with them). docs/DESIGN.md: The documentation pages.
 */

/** What Redoc's bundle loads from its CDN (the attribution logo): answered here instead. */
const REDOC_CDN_LOGOS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': '/docs/assets/redocly-logo-full.svg',
  'https://cdn.redoc.ly/redoc/logo-mini.svg': '/docs/assets/redocly-logo-mini.svg',
};

/** The Authorization value GraphiQL's headers editor starts with; the page's fetcher never sends it. */
const GRAPHIQL_KEY_PLACEHOLDER = 'Bearer <your key>';

interface Asset {
  type: string;
  load(): Promise<string | Buffer>;
}

const gzipAsync = promisify(gzip);
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const SVG = 'image/svg+xml';

/**
 * One part of yoga's GraphiQL build (@graphql-yoga/render-graphiql: a module of string exports,
 * ≈ 9 MB in all), read as data rather than imported, so only the gzipped copies stay in memory.
 */
async function graphiqlPart(
  name: 'js' | 'css' | 'editorWorkerService' | 'jsonWorker' | 'graphqlWorker',
): Promise<string> {
  const file = servedFilePath('graphiql.module.js');
  const found = new RegExp(`^export const ${name} = (".*");$`, 'm').exec(await fs.promises.readFile(file, 'utf8'));
  if (!found) throw new Error(`${file} no longer exports ${name} as one string literal.`);
  return JSON.parse(found[1]) as string;
}

const ASSETS: Record<string, Asset> = {
  'redoc.standalone.js': {
    type: JS,
    async load() {
      let bundle = await fs.promises.readFile(servedFilePath('redoc.standalone.js'), 'utf8');
      for (const [cdn, local] of Object.entries(REDOC_CDN_LOGOS)) bundle = bundle.replaceAll(cdn, local);
      return bundle;
    },
  },
  'redocly-logo-full.svg': { type: SVG, load: async () => logoSvg('Redocly', 64) },
  'redocly-logo-mini.svg': { type: SVG, load: async () => logoSvg('R', 14) },
  'graphiql.js': { type: JS, load: () => graphiqlPart('js') },
  'graphiql.css': { type: CSS, load: () => graphiqlPart('css') },
  'graphiql-editor.worker.js': { type: JS, load: () => graphiqlPart('editorWorkerService') },
  'graphiql-json.worker.js': { type: JS, load: () => graphiqlPart('jsonWorker') },
  'graphiql-graphql.worker.js': { type: JS, load: () => graphiqlPart('graphqlWorker') },
  'graphql-ws.js': {
    type: JS,
    load: () => fs.promises.readFile(servedFilePath('graphql-ws.min.js')),
  },
  'graphiql-start.js': { type: JS, load: () => fs.promises.readFile(servedFilePath('graphiql-start.js')) },
};

/** The attribution Redoc shows under its menu ("API docs by …"), as text. */
function logoSvg(text: string, width: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16"><text x="0" y="13" font-family="sans-serif" font-size="13" font-weight="600" fill="#0044D4">${text}</text></svg>`;
}

/** An asset as served: kept gzipped only (every browser takes gzip; others get it unzipped per request). */
interface Loaded {
  gzip: Buffer;
  etag: string;
  type: string;
}

const ROUTES = new Router([
  { method: 'GET', path: '/docs' },
  { method: 'GET', path: '/docs/assets/:name' },
  // Where people look for an API reference: the one reference.
  { method: 'GET', path: '/redoc' },
  { method: 'GET', path: '/swagger' },
]);

/** A browser asking /graphql for a page (yoga's rule: a GET accepting text/html) gets GraphiQL. */
export function wantsGraphiQL(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && (req.headers.accept ?? '').includes('text/html');
}

export function createDocsHandler(app: App) {
  const loaded = new Map<string, Promise<Loaded>>();

  function asset(name: string): Promise<Loaded> | undefined {
    const found = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!found) return undefined;
    let entry = loaded.get(name);
    if (!entry) {
      entry = found.load().then(async (content) => {
        const body = Buffer.isBuffer(content) ? content : Buffer.from(content);
        // Compressed off the event loop, once (graphiql.js: 5.3 MB → 1.4 MB).
        return {
          gzip: await gzipAsync(body),
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
          type: found.type,
        };
      });
      // A failed load is tried again at the next request.
      entry.catch(() => loaded.delete(name));
      loaded.set(name, entry);
    }
    return entry;
  }

  async function serveAsset(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    const found = asset(name);
    if (!found) throw new ApiError(404, `No route for GET /docs/assets/${name}.`);
    const { gzip, etag, type } = await found;
    // Unversioned names: revalidated on each use (a 304 while unchanged), so an upgrade shows at once.
    const headers: Record<string, string | number> = {
      'Content-Type': type,
      ETag: etag,
      'Cache-Control': 'no-cache',
      Vary: 'Accept-Encoding',
    };
    if (req.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      res.writeHead(304, headers);
      return void res.end();
    }
    const zipped = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const sent = zipped ? gzip : gunzipSync(gzip);
    res.writeHead(200, {
      ...headers,
      ...(zipped ? { 'Content-Encoding': 'gzip' } : {}),
      'Content-Length': sent.length,
    });
    res.end(sent);
  }

  /** A page of one of the two libraries, under the dashboard's CSP with this response's style nonce. */
  function sendPage(res: ServerResponse, nonce: string, html: string, csp: { styleAttributes?: boolean } = {}): void {
    // Both libraries inline their fonts as data: URLs.
    const headers = securityHeaders(app, [], {
      'style-src': [`'nonce-${nonce}'`],
      'font-src': ['data:'],
      ...(csp.styleAttributes ? { 'style-src-attr': ["'unsafe-inline'"] } : {}),
    });
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(html),
      'Cache-Control': 'no-store',
    });
    res.end(html);
  }

  function reference(res: ServerResponse): void {
    const nonce = randomBytes(16).toString('base64');
    // Redoc reads its options from the element's attributes; its telemetry (to redocly.com) is off.
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta property="csp-nonce" content="${nonce}"><title>Cloud Account API reference</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"></head><body><noscript>This reference needs JavaScript. The OpenAPI document it shows is <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript><redoc spec-url="/v1/openapi.json" disable-telemetry="true" hide-download-buttons="false"></redoc><script type="module" src="/docs/assets/redoc.standalone.js"></script></body></html>`;
    sendPage(res, nonce, html);
  }

  return {
    /** /docs, /docs/assets/:name, and /redoc and /swagger, which lead to /docs. */
    async handle(req: IncomingMessage, res: ServerResponse, urlPath: string): Promise<void> {
      const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
      const match = ROUTES.match(method, urlPath);
      if (match.kind !== 'found') throw noRoute(match, req.method ?? 'GET', urlPath);
      const { route, params } = match;
      requestScope.getStore()!.operation = route.path === '/docs/assets/:name' ? 'docs asset' : 'docs';
      if (route.path === '/docs/assets/:name') return await serveAsset(req, res, params.name);
      if (route.path === '/docs') return reference(res);
      res.writeHead(301, { Location: '/docs', 'Content-Length': 0 });
      res.end();
    },

    /** GET /graphql for a browser: GraphiQL, talking to /graphql over HTTP and graphql-ws. */
    graphiql(_req: IncomingMessage, res: ServerResponse): void {
      requestScope.getStore()!.operation = 'graphiql';
      const nonce = randomBytes(16).toString('base64');
      const headers = JSON.stringify({ Authorization: GRAPHIQL_KEY_PLACEHOLDER }, null, 2);
      const config = {
        endpoint: '/graphql',
        placeholder: GRAPHIQL_KEY_PLACEHOLDER,
        // Monaco's workers, by the labels it asks for.
        workers: {
          editorWorkerService: '/docs/assets/graphiql-editor.worker.js',
          json: '/docs/assets/graphiql-json.worker.js',
          graphql: '/docs/assets/graphiql-graphql.worker.js',
        },
        graphiql: {
          title: 'Cloud Account API GraphiQL',
          headers,
          defaultHeaders: headers,
          // The key stays in the page: never written to the browser's storage.
          shouldPersistHeaders: false,
          defaultEditorToolsVisibility: 'headers',
          inputValueDeprecation: true,
          schemaDescription: true,
          defaultQuery: GRAPHIQL_DEFAULT_QUERY,
        },
      };
      // A JSON data block is not script: the CSP allows it, and `<` is escaped so it cannot end the element.
      const data = JSON.stringify(config).replace(/</g, '\\u003c');
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta property="csp-nonce" content="${nonce}"><title>${escapeHtml(config.graphiql.title)}</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/docs/assets/graphiql.css"></head><body id="body" class="no-focus-outline"><noscript>GraphiQL needs JavaScript. The API reference is at <a href="/docs">/docs</a>.</noscript><div id="root">Loading GraphiQL…</div><script type="application/json" id="graphiql-config">${data}</script><script src="/docs/assets/graphql-ws.js"></script><script src="/docs/assets/graphiql.js"></script><script src="/docs/assets/graphiql-start.js"></script></body></html>`;
      // Monaco (GraphiQL's editor) renders its lines as HTML with style attributes (positions,
      // widths): those are allowed on this page; <style> elements still need the nonce.
      sendPage(res, nonce, html, { styleAttributes: true });
    },
  };
}

const GRAPHIQL_DEFAULT_QUERY = `# The Cloud Account API over GraphQL.
# Your API key or access token goes in Headers:
#   {"Authorization": "Bearer svc_..."}
# Docs (top left) lists every type and field.
# Subscriptions run over graphql-ws here too:
#   subscription { events { id type } }

query Account {
  account {
    id
    email
    name
  }
}
`;
