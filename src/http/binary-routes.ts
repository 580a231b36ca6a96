import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { App } from '../app-services.ts';
import { tenantClient, type TenantDb } from '../db/tenant.ts';
import { badRequest, forbidden, unauthorized } from '../errors.ts';
import type { Scope } from '../modules/auth/scopes.ts';
import type { Principal } from '../modules/auth/service.ts';
import { hostingBinaryRoutes } from '../modules/hosting/binary.ts';
import type { Area, HttpMethod } from '../schema/operation.ts';
import { sendJson } from './respond.ts';

/**
 * Binary streams (file upload, file and backup download): the only hand-written routes of
 * /v1 (DESIGN.md). Each module declares its own in its `binary.ts`; this registry lists
 * them, api.ts dispatches to them after authentication and the per-credential rate limit
 * and before any JSON body is read, and the OpenAPI document and the coverage test read
 * the same declarations. Scope checks answer 401/403 exactly like the schema's operations.
 */
export interface BinaryRoute {
  method: HttpMethod;
  /** Path relative to /v1, exactly as in the spec. */
  path: `/${string}`;
  scope: Scope;
  area: Area;
  /** Names the route in logs, metrics and the OpenAPI document. */
  operationId: string;
  description: string;
  query: { name: string; required: boolean; description: string }[];
  /** A multipart/form-data body with one file field. */
  upload?: { field: string; description: string };
  response: { contentType: string; description: string };
  handle(request: BinaryRequest): Promise<void>;
}

export interface BinaryRequest {
  app: App;
  principal: Principal;
  /** The caller's account-scoped database. */
  db: TenantDb;
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Headers every response of the request carries (rate limit). */
  headers: Record<string, string>;
}

/** Every module's binary routes. A function, so modules can import the helpers below without an import cycle. */
export function binaryRoutes(): BinaryRoute[] {
  return [...hostingBinaryRoutes];
}

export type BinaryMatch = { kind: 'found'; route: BinaryRoute; params: Record<string, string> } | { kind: 'none'; allow: string[] };

export class BinaryRoutes {
  private readonly compiled: { route: BinaryRoute; pattern: RegExp }[];

  constructor(routes: BinaryRoute[] = binaryRoutes(), private readonly basePath = '/v1') {
    this.compiled = routes.map((route) => ({
      route,
      pattern: new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z_]\w*)/g, '(?<$1>[^/]+)')}/?$`),
    }));
  }

  match(method: string, pathname: string): BinaryMatch {
    if (!pathname.startsWith(`${this.basePath}/`)) return { kind: 'none', allow: [] };
    const path = pathname.slice(this.basePath.length);
    const allow: string[] = [];
    for (const { route, pattern } of this.compiled) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (route.method === method) {
        const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]));
        return { kind: 'found', route, params };
      }
      allow.push(route.method);
    }
    return { kind: 'none', allow };
  }

  /** Checks the credential, its scope and the query string, then runs the route. */
  async dispatch(app: App, principal: Principal | null, match: Extract<BinaryMatch, { kind: 'found' }>, req: IncomingMessage, res: ServerResponse, url: URL, headers: Record<string, string>): Promise<void> {
    const { route } = match;
    if (!principal) throw unauthorized();
    if (!principal.scopes.has(route.scope)) throw forbidden(`This credential lacks the scope "${route.scope}".`);
    // PostgreSQL cannot store U+0000 and the file system cannot name it: refused like the schema's operations do.
    for (const [name, value] of [...Object.entries(match.params), ...url.searchParams]) {
      if (value.includes('\u0000')) throw badRequest(`${name} must not contain the NUL character (U+0000).`, name);
    }
    const known = new Set(route.query.map((q) => q.name));
    for (const name of url.searchParams.keys()) {
      if (!known.has(name)) throw badRequest(`Unknown query parameter "${name}".`, name);
    }
    for (const q of route.query) {
      if (q.required && !url.searchParams.get(q.name)) throw badRequest(`${q.name} is required.`, q.name);
    }
    await route.handle({ app, principal, db: tenantClient(app.prisma, principal.accountId), req, res, params: match.params, query: url.searchParams, headers });
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * `Content-Disposition: attachment` per RFC 6266: an ASCII `filename` fallback (other
 * characters, quotes, backslashes and percent signs replaced by "_") and the exact name as
 * `filename*=UTF-8''<percent-encoded>` (RFC 8187).
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Streams a file as an attachment: Content-Type, Content-Length and Content-Disposition set before the first byte. */
export async function sendAttachment(
  request: BinaryRequest,
  file: { name: string; sizeBytes: number; open(): Readable },
  contentType: string,
): Promise<void> {
  const stream = file.open();
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  request.res.writeHead(200, {
    ...request.headers,
    'Content-Type': contentType,
    'Content-Length': String(file.sizeBytes),
    'Content-Disposition': contentDisposition(file.name),
    'Cache-Control': 'private, no-store',
  });
  try {
    await pipeline(stream, request.res);
  } catch {
    // The client went away or the file changed under us: the response cannot be repaired now.
    request.res.destroy();
  }
}

export function sendJsonResult(request: BinaryRequest, status: number, body: unknown): void {
  sendJson(request.res, status, body, request.headers);
}
