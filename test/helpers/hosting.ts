import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect } from 'vitest';
import type { ClientApp, Customer, Json } from './app.ts';

export const MANAGE = ['hosting:read', 'hosting:write', 'hosting:manage'];

/** A fresh domain name per call, so tests never collide on the global domain uniqueness. */
export function domainName(label = 'site'): string {
  return `${label}-${randomBytes(4).toString('hex')}.example.com`;
}

/** Orders a hosting account through the operator API and advances the clock until it is active. */
export async function activeHosting(
  app: ClientApp,
  c: Customer,
  opts: { domain?: string; productId?: string } = {},
): Promise<string> {
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, {
    domain: opts.domain ?? domainName(),
    ...(opts.productId ? { productId: opts.productId } : {}),
  });
  expect(order.status, order.text).toBe(201);
  const tick = await app.admin('POST', '/admin/clock/advance', { seconds: 61 });
  expect(tick.status, tick.text).toBe(200);
  return order.body.id;
}

/** The account's directory on disk (src/provider/hosting/simulated.ts). */
export function siteDir(
  app: ClientApp,
  hostingId: string,
  part: 'home' | 'mysql' | 'backups' | 'private' | 'tmp' = 'home',
): string {
  return path.join(app.dataDir, 'hosting', hostingId, part);
}

/** POSTs a multipart upload with one `file` field. */
export async function upload(
  app: ClientApp,
  key: string,
  hostingId: string,
  opts: { path?: string; name: string; data: Uint8Array; field?: string },
) {
  const form = new FormData();
  form.append(opts.field ?? 'file', new Blob([new Uint8Array(opts.data)]), opts.name);
  const qs = opts.path === undefined ? '' : `?path=${encodeURIComponent(opts.path)}`;
  const res = await fetch(`${app.url}/v1/hosting/${hostingId}/files/upload${qs}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** GETs a binary route and returns its bytes. */
export async function fetchBytes(app: ClientApp, key: string, p: string) {
  const res = await fetch(`${app.url}${p}`, { headers: { Authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}
