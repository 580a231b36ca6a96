import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { EgressRefused, requireAllowedScheme, resolvePinned, type Target } from './policy.ts';

// Outbound HTTP under the egress policy (policy.ts): webhook deliveries and OAuth client metadata documents.

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DocumentResult extends PostResult {
  headers: IncomingHttpHeaders;
  /** The body, when the answer came whole within the size limit. */
  body: Buffer | null;
}

/** At most this much of a webhook response body is read (then discarded). */
const MAX_RESPONSE_BYTES = 64 * 1024;

interface GuardedOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Bytes of the response read at most; past it the exchange stops. */
  maxBytes: number;
  /** Keep the body (a document fetch); past maxBytes that is an error, not a status. */
  keepBody: boolean;
}

/**
 * POSTs `body` to `rawUrl` with the SSRF check made now and the connection pinned to the
 * checked address (custom `lookup`), TLS still verified against the host name. Redirects are
 * not followed. The whole exchange (DNS, connect, TLS, request, response headers and body)
 * must finish within `timeoutMs`. Never throws.
 */
export async function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const { statusCode, error, durationMs } = await guardedRequest(
    rawUrl,
    'POST',
    { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    body,
    { ...opts, maxBytes: MAX_RESPONSE_BYTES, keepBody: false },
  );
  return { statusCode, error, durationMs };
}

/** GETs a small document (an OAuth client ID metadata document) under the same guard and deadline as a webhook. */
export function getDocument(
  rawUrl: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean; maxBytes: number },
): Promise<DocumentResult> {
  return guardedRequest(rawUrl, 'GET', headers, undefined, { ...opts, keepBody: true });
}

async function guardedRequest(
  rawUrl: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: string | undefined,
  opts: GuardedOptions,
): Promise<DocumentResult> {
  const started = performance.now();
  let responseHeaders: IncomingHttpHeaders = {};
  let kept: Buffer | null = null;
  const done = (statusCode: number | null, error: string | null): DocumentResult => ({
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
    headers: responseHeaders,
    body: error ? null : kept,
  });
  let url: URL;
  try {
    url = new URL(rawUrl);
    requireAllowedScheme(url, opts.allowPrivate);
  } catch (err) {
    return done(null, err instanceof EgressRefused ? err.message : 'invalid url');
  }
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  let target: Target;
  try {
    target = await Promise.race([
      resolvePinned(url.hostname, opts.allowPrivate, 'url'),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error('timeout')), { once: true }),
      ),
    ]);
  } catch (err) {
    return done(null, err instanceof EgressRefused ? err.message : `timed out after ${opts.timeoutMs} ms`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<DocumentResult>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      resolve(done(statusCode, error));
    };
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        servername: isIP(host) ? undefined : host,
        agent: pinnedAgent(url, host, target),
        signal: deadline,
      },
      (res) => {
        responseHeaders = res.headers;
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (opts.keepBody) chunks.push(chunk);
          if (read > opts.maxBytes) {
            res.destroy();
            finish(
              opts.keepBody ? null : (res.statusCode ?? null),
              opts.keepBody ? `response larger than ${opts.maxBytes} bytes` : null,
            );
          }
        });
        res.on('end', () => {
          if (opts.keepBody) kept = Buffer.concat(chunks);
          finish(res.statusCode ?? null, null);
        });
        // A body cut off by the deadline is a timeout, whatever the status said.
        const cut = () =>
          deadline.aborted
            ? finish(null, `timed out after ${opts.timeoutMs} ms`)
            : finish(opts.keepBody ? null : (res.statusCode ?? null), opts.keepBody ? 'response cut off' : null);
        res.on('error', cut);
        res.on('close', cut);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish(null, deadline.aborted ? `timed out after ${opts.timeoutMs} ms` : describe(err));
    });
    req.end(body);
  });
}

/**
 * Keep-alive connections, one pool per (scheme, host, port, checked address): every delivery
 * re-checks DNS, and only reuses a connection when the name still resolves to the address the
 * pool is pinned to — a rebinding gets a new pool on the new, checked address. Reusing
 * connections saves a TCP (and TLS) handshake per delivery.
 */
const agents = new Map<string, http.Agent>();
const MAX_POOLS = 256;

function pinnedAgent(url: URL, host: string, target: { address: string; family: number }): http.Agent {
  const key = `${url.protocol}//${host}:${url.port}@${target.address}`;
  let agent = agents.get(key);
  if (!agent) {
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const opts = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 32, maxFreeSockets: 32, timeout: 60_000, lookup };
    agent = url.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
    if (agents.size >= MAX_POOLS) {
      const [oldest, old] = agents.entries().next().value as [string, http.Agent];
      old.destroy();
      agents.delete(oldest);
    }
    agents.set(key, agent);
  }
  return agent;
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code === 'ENOTFOUND') return 'host not found';
  if (err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT')) return `TLS error (${err.code})`;
  return err.code ? `network error (${err.code})` : 'network error';
}
