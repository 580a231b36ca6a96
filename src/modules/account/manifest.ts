import { defineArea } from '../../core/area.ts';

/** The account the credential belongs to (docs/DESIGN.md: Areas declare themselves once). */
export const accountArea = defineArea({
  name: 'account',
  api: {
    tag: 'The account the credential belongs to.',
    toolset: { offered: 'on request', order: 9 },
    toolPrefixes: ['account'],
  },
  scopes: { 'account:read': 'Account profile' },
});
