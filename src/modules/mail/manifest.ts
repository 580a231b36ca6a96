import { defineArea, int, str, strOf } from '../../core/area.ts';

/** Email hosting (docs/DESIGN.md: Areas declare themselves once). */
export const mailArea = defineArea({
  name: 'mail',
  api: {
    tag: 'Email hosting: mail domains, mailboxes, forwarding aliases and the DNS records a domain needs. Changes fire `mail.*` events.',
    toolset: { offered: 'on request', order: 8 },
    toolPrefixes: ['mail', 'mailbox', 'mailboxes'],
  },
  scopes: {
    'mail:read': 'Mail domains, mailboxes, aliases and setup records',
    'mail:write': 'Mail domain, mailbox and alias writes',
  },
  // Every kind starts with `mail.`, so one prefix follows the whole area; a mail domain is
  // `mail.domain.*`, apart from `domain.*` (registered domains). Passwords never appear.
  events: {
    order: 7,
    kinds: {
      'mail.domain.enabled': { scope: 'mail:read', fields: { mailDomainId: int, domain: str } },
      'mail.domain.disabled': {
        scope: 'mail:read',
        fields: { mailDomainId: int, domain: str, mailboxesRemoved: int, aliasesRemoved: int },
      },
      'mail.mailbox.created': {
        scope: 'mail:read',
        fields: { mailboxId: int, mailDomainId: int, address: strOf('info@example.com'), quotaMb: int },
      },
      'mail.mailbox.deleted': {
        scope: 'mail:read',
        fields: { mailboxId: int, mailDomainId: int, address: strOf('info@example.com') },
      },
      'mail.mailbox.password.changed': {
        scope: 'mail:read',
        fields: { mailboxId: int, mailDomainId: int, address: strOf('info@example.com') },
      },
      'mail.alias.created': {
        scope: 'mail:read',
        fields: {
          aliasId: int,
          mailDomainId: int,
          source: strOf('sales@example.com'),
          destination: strOf('ada@example.com'),
        },
      },
      'mail.alias.deleted': {
        scope: 'mail:read',
        fields: { aliasId: int, mailDomainId: int, source: strOf('sales@example.com') },
      },
    },
  },
});
