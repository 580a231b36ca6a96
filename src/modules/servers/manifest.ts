import { defineArea, int, nullableStr, str, strOf } from '../../core/area.ts';

/** Virtual servers (docs/DESIGN.md: Areas declare themselves once). */
export const serversArea = defineArea({
  name: 'servers',
  api: {
    tag: 'Virtual servers: power, snapshots, reverse DNS, plan changes, add-ons, reinstall and termination. A server moves through `provisioning` → `running` ⇄ `stopped`, and `rebooting`, `restoring`, `reinstalling` or `suspended` for a while; an action its state forbids is a `409`. Changes fire `server.*` events.',
    toolset: { offered: 'by default', order: 1 },
    toolPrefixes: ['server', 'servers'],
  },
  scopes: {
    'servers:read':
      'Server reads, stats, snapshots, IPs, plan options, add-on list, dashboard SSO, pool reads and quotes',
    'servers:write': 'Power, snapshots, PTR, plan change, add-ons, pool buy/resize/servers/IP apply',
    'servers:destroy': 'Reinstall, snapshot revert, server terminate, pool delete (opt-in)',
  },
  optIn: ['servers:destroy'],
  events: {
    order: 1,
    kinds: {
      'server.created': { scope: 'servers:read', fields: { serverId: str, status: strOf('provisioning'), label: str } },
      'server.power.changed': { scope: 'servers:read', fields: { serverId: str, action: str } },
      'server.resized': { scope: 'servers:read', fields: { serverId: str, productId: str, vcpu: int, ramMb: int } },
      'server.reinstalled': { scope: 'servers:read', fields: { serverId: str, os: str, osTemplate: str } },
      'server.ptr.changed': { scope: 'servers:read', fields: { serverId: str, ip: str, ptr: nullableStr } },
      'server.terminated': { scope: 'servers:read', fields: { serverId: str } },
      'server.suspended': { scope: 'servers:read', fields: { serverId: str, reason: str } },
      'server.snapshot.created': { scope: 'servers:read', fields: { serverId: str, snapshotId: str, name: str } },
      'server.snapshot.deleted': { scope: 'servers:read', fields: { serverId: str, snapshotId: str, name: str } },
      // Recorded when the revert is accepted; the server is `restoring` until it is done.
      'server.snapshot.reverted': { scope: 'servers:read', fields: { serverId: str, snapshotId: str, name: str } },
      'server.addon.attached': {
        scope: 'servers:read',
        fields: { serverId: str, addonId: str, type: str, chargedUsdCents: int },
      },
      'server.addon.detached': { scope: 'servers:read', fields: { serverId: str, addonId: str, type: str } },
    },
    // The status moves no event above reports: an order accepted (provisioning), a reboot or a
    // restore settling, a reinstall starting, a suspension lifted, a pool's deletion powering it off.
    liveChanges: {
      'server.status.changed': { scope: 'servers:read', fields: { serverId: str, status: strOf('running') } },
    },
  },
  idPrefixes: { server: 'srv', serverIp: 'ip', snapshot: 'snap', serverAddon: 'sad', ssoToken: 'sso' },
  runtime: { renewalPurpose: 'server_renewal', providerCallbacks: ['serverDriver'] },
});
