import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may point (SSRF guard). Without WEBHOOK_ALLOW_PRIVATE=1: https only, and
 * every address the host resolves to must be public — no loopback, private, shared (CGNAT),
 * link-local, cloud metadata, multicast, documentation or reserved ranges, for IPv4, IPv6
 * and IPv4 inside IPv6. Checked at create and update, and again at each delivery, where the
 * connection is made to the very address that was checked (so DNS rebinding between the
 * check and the connect cannot redirect it).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
// Azure's wire server / metadata address is public address space.
BLOCKED.addAddress('168.63.129.16', 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64],
  ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

export class UrlRefused extends Error {}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  // Only global unicast (2000::/3) is public IPv6.
  const first = parseInt(address.split(':')[0] || '0', 16);
  if ((first & 0xe000) !== 0x2000) return false;
  return !BLOCKED.check(address, 'ipv6');
}

export interface Target {
  address: string;
  family: 4 | 6;
}

/** https, or http too with private targets allowed; the refusal says what this server accepts. Throws UrlRefused. */
export function requireAllowedScheme(url: URL, allowPrivate: boolean): void {
  if (url.protocol === 'https:' || (allowPrivate && url.protocol === 'http:')) return;
  throw new UrlRefused(allowPrivate ? 'url must use http or https.' : 'url must use https.');
}

/** Parses and checks the URL's form (scheme, host, no fragment). Throws UrlRefused. */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('url must be an absolute URL.');
  }
  requireAllowedScheme(url, allowPrivate);
  if (!url.hostname) throw new UrlRefused('url must name a host.');
  if (url.hash) throw new UrlRefused('url must not have a fragment.');
  return url;
}

/**
 * Resolves the URL's host and returns the address to connect to, refusing a non-public one
 * (unless private targets are allowed). Every resolved address must pass: a host with one
 * public and one private record is refused.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<Target> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new UrlRefused(`url host "${host}" does not resolve.`);
    }
    if (!addresses.length) throw new UrlRefused(`url host "${host}" does not resolve.`);
  }
  if (!allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw new UrlRefused(`url must not point to a loopback, private, link-local or metadata address (${host} → ${bad.address}).`);
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

/** The check made at create and update. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(raw, allowPrivate);
  if (!allowPrivate) await resolveTarget(url, false);
  return url;
}
