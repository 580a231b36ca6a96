import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The one egress policy (DESIGN.md: Trust boundaries) for every connection this server opens
 * on a customer's say-so: webhook deliveries, OAuth client metadata documents and git deploys.
 * A host is resolved here, every address it resolves to must be public — no loopback, private,
 * shared (CGNAT), link-local, cloud metadata, unspecified, multicast, documentation or reserved
 * range, for IPv4, IPv6 and IPv4 inside IPv6 (the resolver reads decimal, octal and hex IPv4
 * forms, so they are judged by the address they mean) — and the caller connects to the very
 * address that was checked, so DNS rebinding between the check and the connect cannot redirect
 * it. Each kind has its own development switch (WEBHOOK_ALLOW_PRIVATE for webhooks and metadata
 * documents, HOSTING_ALLOW_LOCAL_GIT for git): one never opens the other.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
// Azure's wire server / metadata address is public address space.
BLOCKED.addAddress('168.63.129.16', 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** A refusal by the policy; its message is safe to show the customer (it never says what a name resolves to). */
export class EgressRefused extends Error {}

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

/** The checked address a connection must be made to. */
export interface Target {
  address: string;
  family: 4 | 6;
}

/**
 * One answer for a name that does not resolve and for one that resolves to a refused address:
 * saying which (or what it resolves to) would make this server a DNS oracle for its own network.
 */
function notAllowed(field: string): EgressRefused {
  return new EgressRefused(
    `${field} is not allowed: its host must resolve to public addresses only, not to a loopback, private, link-local or metadata address.`,
  );
}

/**
 * Resolves `hostname` (a URL's hostname; IPv6 brackets allowed) and returns the address to
 * connect to. Unless `allowPrivate`, every resolved address must be public: a host with one
 * public and one private record is refused. `field` names the input in the refusal.
 */
export async function resolvePinned(hostname: string, allowPrivate: boolean, field: string): Promise<Target> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw notAllowed(field);
    }
    if (!addresses.length) throw notAllowed(field);
  }
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) throw notAllowed(field);
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

// ---------------------------------------------------------------- http(s): webhooks, metadata documents

/** https, or http too with private targets allowed; the refusal says what this server accepts. Throws EgressRefused. */
export function requireAllowedScheme(url: URL, allowPrivate: boolean): void {
  if (url.protocol === 'https:' || (allowPrivate && url.protocol === 'http:')) return;
  throw new EgressRefused(allowPrivate ? 'url must use http or https.' : 'url must use https.');
}

/** Parses and checks an http(s) URL's form (scheme, host, no fragment). Throws EgressRefused. */
export function parseHttpUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefused('url must be an absolute URL.');
  }
  requireAllowedScheme(url, allowPrivate);
  if (!url.hostname) throw new EgressRefused('url must name a host.');
  if (url.hash) throw new EgressRefused('url must not have a fragment.');
  return url;
}

/** The check made when a URL is stored (webhook create and update): form, then resolution. */
export async function checkHttpUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseHttpUrl(raw, allowPrivate);
  if (!allowPrivate) await resolvePinned(url.hostname, false, 'url');
  return url;
}

// ---------------------------------------------------------------- git over ssh

/**
 * The host of an ssh repository address (`user@host:path` or `ssh://[user@]host[:port]/path`),
 * or null for a local path. Only names of letters, digits, dots and dashes and bracketed IPv6
 * literals are accepted: a host that ssh would read differently from the resolver (percent
 * escapes, a leading dash) cannot be pinned, so it is refused.
 */
function gitHost(repoUrl: string): string | null {
  let host: string;
  if (repoUrl.startsWith('ssh://')) {
    try {
      host = new URL(repoUrl).hostname;
    } catch {
      throw new EgressRefused('repo_url is not a valid ssh address.');
    }
  } else if (/^[^/@:]+@[^/:]+:/.test(repoUrl)) {
    host = repoUrl.slice(repoUrl.indexOf('@') + 1, repoUrl.indexOf(':', repoUrl.indexOf('@')));
  } else return null;
  if (/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(host) || (/^\[[0-9A-Fa-f:.]+\]$/.test(host) && isIP(host.slice(1, -1)) === 6))
    return host.replace(/^\[|\]$/g, '');
  throw new EgressRefused('repo_url must name its host by a DNS name or an IP address.');
}

/** Resolves and checks a git repository's host; null for a local path (which has no host). */
export async function resolveGitTarget(
  repoUrl: string,
  allowLocal: boolean,
): Promise<(Target & { host: string }) | null> {
  const host = gitHost(repoUrl);
  if (host === null) return null;
  return { host, ...(await resolvePinned(host, allowLocal, 'repo_url')) };
}
