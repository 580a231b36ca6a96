import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';

/** Longest forwarded hop kept as a limit key when it is not an address (a proxy wrote something odd). */
const MAX_HOP_LENGTH = 64;

/**
 * The client address every per-address limit counts by. Without TRUST_PROXY it is the peer of
 * the socket. With it, X-Forwarded-For is read from the right while the hop so far is a trusted
 * proxy: the client is the right-most hop that is not one (the peer itself when it is not). A
 * client may write anything into the header, but only to the left of what our proxies append,
 * so a forged hop is never reached while a real, untrusted one stands to its right.
 */
export function clientAddress(config: Pick<Config, 'trustProxy'>, req: IncomingMessage): string {
  const peer = plainAddress(req.socket.remoteAddress ?? '') || 'unknown';
  const trusted = config.trustProxy;
  if (!trusted?.has(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]);
    if (!hop) continue;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}

/**
 * A hop as an address: trimmed, without a port (`1.2.3.4:80`, `[::1]:80`), an IPv4-mapped IPv6
 * address as IPv4, IPv6 in lower case. Anything else is returned trimmed and cut short.
 */
function plainAddress(raw: string): string {
  let hop = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) hop = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(hop)) hop = hop.slice(0, hop.lastIndexOf(':'));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(hop);
  if (mapped) hop = mapped[1];
  if (isIP(hop) === 6) return hop.toLowerCase();
  return isIP(hop) === 4 ? hop : hop.slice(0, MAX_HOP_LENGTH);
}
