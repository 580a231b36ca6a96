/** What the platform asks of the domain registrar. A real driver (an EPP client, a reseller API) implements the same. */
export interface Registrar {
  /** Yearly price of a registration for the domain's TLD, in cents; null when the TLD is not sold. */
  priceUsdCents(domain: string): number | null;
  /** Registers a paid domain for `years`; resolves once the registry confirmed it. */
  register(
    req: { domain: string; years: number; nameservers: string[]; whoisPrivacy: boolean; transferLock: boolean },
    now: Date,
  ): Promise<{ expiresAt: Date }>;
  /** Applies settings to a registered domain (nameservers, lock, privacy; auto-renew is ours). */
  update(
    domain: string,
    changes: { nameservers?: string[]; transferLock?: boolean; whoisPrivacy?: boolean },
    now: Date,
  ): Promise<void>;
}

/** Yearly prices of the simulated registrar, in cents (docs/REFERENCE.md: Domains). */
const TLD_PRICES_USD_CENTS: Record<string, number> = {
  com: 1299,
  net: 1499,
  org: 1399,
  io: 3999,
  dev: 1599,
  de: 999,
  eu: 899,
  uk: 899,
};

/** Nameservers a new domain points to: the service's DNS. */
export const DEFAULT_NAMESERVERS = ['ns1.cloudhost.example', 'ns2.cloudhost.example'];

/** The simulated registry: every registration and change succeeds at once. */
class SimulatedRegistrar implements Registrar {
  priceUsdCents(domain: string): number | null {
    return TLD_PRICES_USD_CENTS[domain.slice(domain.lastIndexOf('.') + 1)] ?? null;
  }

  async register(req: { domain: string; years: number }, now: Date): Promise<{ expiresAt: Date }> {
    const expiresAt = new Date(now);
    expiresAt.setUTCFullYear(expiresAt.getUTCFullYear() + req.years);
    return { expiresAt };
  }

  async update(): Promise<void> {}
}

export const registrar: Registrar = new SimulatedRegistrar();
