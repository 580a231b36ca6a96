import { BlockList, isIP } from 'node:net';

/**
 * TRUST_PROXY: the proxies whose `X-Forwarded-For` is believed, as a comma-separated list of
 * addresses and CIDR blocks (IPv4 and IPv6), and `loopback` for 127.0.0.0/8 and ::1. An
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) counts as its IPv4 address.
 */
export class TrustedProxies {
  private readonly list = new BlockList();

  private constructor(
    /** The entries as the operator wrote them (trimmed), for the log. */
    readonly entries: readonly string[],
  ) {}

  /** Parses TRUST_PROXY's value; throws an Error naming the entry that is not an address, a block or `loopback`. */
  static parse(value: string): TrustedProxies {
    const entries = value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    if (entries.length === 0)
      throw new Error(`TRUST_PROXY must list addresses, CIDR blocks or "loopback", got "${value}"`);
    const trusted = new TrustedProxies(entries);
    for (const entry of entries) trusted.add(entry);
    return trusted;
  }

  private add(entry: string): void {
    if (entry.toLowerCase() === 'loopback') {
      this.list.addSubnet('127.0.0.0', 8, 'ipv4');
      this.list.addAddress('::1', 'ipv6');
      return;
    }
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const problem = `TRUST_PROXY: "${entry}" is not an IP address, a CIDR block (10.0.0.0/8, fd00::/8) or "loopback"`;
    if (!family || extra !== undefined) throw new Error(problem);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      this.list.addAddress(address, type);
      return;
    }
    const prefix = Number(bits);
    if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(problem);
    this.list.addSubnet(address, prefix, type);
  }

  /** True when `address` (a plain IPv4 or IPv6 address) is one of the trusted proxies. */
  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}
