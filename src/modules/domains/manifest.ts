import { bool, defineArea, int, str, strList, time } from '../../core/area.ts';

/** Registered domains (docs/DESIGN.md: Areas declare themselves once). */
export const domainsArea = defineArea({
  name: 'domains',
  api: {
    tag: 'Registered domains and their registrar settings: auto-renew, transfer lock, nameservers, WHOIS privacy. Changes fire `domain.*` events.',
    toolset: { offered: 'by default', order: 4 },
    toolPrefixes: ['domain', 'domains'],
  },
  scopes: { 'domains:read': 'Domain reads', 'domains:write': 'Domain updates' },
  events: {
    order: 4,
    kinds: {
      'domain.registered': {
        scope: 'domains:read',
        fields: { domainId: str, domain: str, periodYears: int, expiresAt: time },
      },
      // The settings after the change, and which of them changed (`autoRenew`, …): a reader
      // needs no second call to see what the domain is now.
      'domain.updated': {
        scope: 'domains:read',
        fields: {
          domainId: str,
          domain: str,
          changed: { ...strList, examples: [['autoRenew', 'nameservers']] },
          autoRenew: bool,
          transferLock: bool,
          whoisPrivacy: bool,
          nameservers: strList,
        },
      },
    },
  },
  idPrefixes: { domain: 'dom' },
});
