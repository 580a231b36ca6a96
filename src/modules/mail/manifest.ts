import { defineArea } from '../../core/area.ts';

/** Email hosting (docs/DESIGN.md: Areas declare themselves once). */
export const mailArea = defineArea({
  name: 'mail',
  api: {
    tag: 'Email hosting: mail domains, mailboxes, forwarding aliases and the DNS records a domain needs.',
    toolset: { offered: 'on request', order: 8 },
    toolPrefixes: ['mail', 'mailbox', 'mailboxes'],
  },
  scopes: {
    'mail:read': 'Mail domains, mailboxes, aliases and setup records',
    'mail:write': 'Mail domain, mailbox and alias writes',
  },
});
