import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { App } from '../../app-services.ts';
import { SCOPES, type Scope } from '../../scopes.ts';
import { DASHBOARD_DIST } from '../served-files.ts';

/**
 * Server-rendered HTML: the pages a person must be able to use without script (sign-in, the
 * device page, the OAuth consent page), in the dashboard's stylesheet, under the dashboard's
 * CSP. Every value is escaped; no inline script or style.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Security headers of every dashboard response; `formTargets` adds origins a form may lead to (the
 * consent page's redirect), `extra` adds sources to other directives, for one response only (the
 * API reference and GraphiQL, see src/http/pages/docs.ts).
 */
export function securityHeaders(
  app: App,
  formTargets: string[] = [],
  extra: Partial<Record<'style-src' | 'style-src-attr' | 'font-src', string[]>> = {},
): Record<string, string> {
  const base = new URL(app.config.publicBaseUrl);
  const https = base.protocol === 'https:';
  const ws = `${https ? 'wss' : 'ws'}://${base.host}`;
  const headers: Record<string, string> = {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      ["style-src 'self'", ...(extra['style-src'] ?? [])].join(' '),
      ...(extra['style-src-attr'] ? [['style-src-attr', ...extra['style-src-attr']].join(' ')] : []),
      "img-src 'self' data:",
      `connect-src 'self' ${ws}`,
      ["font-src 'self'", ...(extra['font-src'] ?? [])].join(' '),
      "object-src 'none'",
      "base-uri 'none'",
      // Browsers check form-action on the redirect after a post too.
      ["form-action 'self'", ...formTargets].join(' '),
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    // same-origin, not no-referrer: with no-referrer some browsers send `Origin: null` on same-origin posts.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  };
  if (https) headers['Strict-Transport-Security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/** The built dashboard's index.html, or null before `npm run build:dashboard`. */
export function dashboardIndex(): Buffer | null {
  const file = path.join(DASHBOARD_DIST, 'index.html');
  return fs.existsSync(file) ? fs.readFileSync(file) : null;
}

/** The dashboard's stylesheet links, taken from its built index.html (the file names carry a hash). */
function stylesheets(): string {
  const index = dashboardIndex()?.toString('utf8') ?? '';
  return [...index.matchAll(/<link rel="stylesheet"[^>]*>/g)].map((m) => m[0]).join('');
}

/** A whole page around `body` (already escaped markup). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${stylesheets()}</head><body>${body}</body></html>`;
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
  });
  res.end(html);
}

/** A page that only says something (an error, a result). */
export function messagePage(title: string, message: string, link = '<a href="/">Go to the dashboard</a>'): string {
  return htmlPage(
    title,
    `<main class="narrow"><section class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p>${link}</p></section></main>`,
  );
}

/**
 * Who is asking, on the device and consent pages: the client id always, and "unverified" when
 * the client named itself (its name is only its own claim).
 */
export function clientLine(client: { id: string; verified: boolean }): string {
  return `Client <span class="mono" data-testid="client-id">${escapeHtml(client.id)}</span>${client.verified ? '' : ' <strong class="unverified" data-testid="unverified">unverified</strong>: the name above is the one it chose for itself'}.`;
}

export function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/**
 * The scope picker of the device and consent pages: one checkbox per requested scope (named
 * `granted`), ticked when chosen, with what each scope covers. Same markup and classes as the
 * dashboard's ScopePicker.
 */
export function scopePicker(requested: readonly Scope[], chosen: ReadonlySet<string> = new Set(requested)): string {
  const boxes = requested
    .map(
      (s) =>
        `<label class="check" title="${escapeHtml(SCOPES[s])}"><input type="checkbox" name="granted" value="${s}"${chosen.has(s) ? ' checked' : ''}><span class="mono">${s}</span></label>`,
    )
    .join('');
  const about = requested.map((s) => `<li><span class="mono">${s}</span>: ${escapeHtml(SCOPES[s])}</li>`).join('');
  return `<div class="scopes" data-testid="scope-picker">${boxes}</div><ul class="small muted">${about}</ul>`;
}

/** The scopes ticked in a picker's form post, kept to the requested ones. */
export function pickedScopes(form: URLSearchParams, requested: readonly Scope[]): Scope[] {
  const ticked = new Set(form.getAll('granted'));
  return requested.filter((s) => ticked.has(s));
}
