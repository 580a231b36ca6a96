import { defineArea, int, str, time } from '../../core/area.ts';

/** Registered domains (docs/DESIGN.md: Areas declare themselves once). */
export const domainsArea = defineArea({
  name: 'domains',
  api: {
    tag: 'Registered domains and their registrar settings: auto-renew, transfer lock, nameservers, WHOIS privacy.',
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
    },
  },
  idPrefixes: { domain: 'dom' },
});
