import { defineArea, str } from '../../core/area.ts';

/** The account the credential belongs to (docs/DESIGN.md: Areas declare themselves once). */
export const accountArea = defineArea({
  name: 'account',
  api: {
    tag: 'The account the credential belongs to: its profile, password, signed-in sessions and SSH keys.',
    toolset: { offered: 'on request', order: 9 },
    toolPrefixes: ['account'],
  },
  scopes: {
    'account:read': 'Account profile, SSH keys',
    'account:write': 'Account profile updates, SSH keys added and deleted',
  },
  events: {
    order: 8,
    kinds: {
      'account.ssh_key.added': { scope: 'account:read', fields: { sshKeyId: str, name: str, fingerprint: str } },
      'account.ssh_key.deleted': { scope: 'account:read', fields: { sshKeyId: str, name: str, fingerprint: str } },
    },
  },
  idPrefixes: { sshKey: 'ssh' },
});
