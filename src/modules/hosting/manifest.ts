import { defineArea, str, strOf } from '../../core/area.ts';

/** Web hosting accounts and their control panel (docs/DESIGN.md: Areas declare themselves once). */
export const hostingArea = defineArea({
  name: 'hosting',
  api: {
    tag: 'Web hosting accounts and their control panel: files, databases, backups, cron, git deploy, custom domain and certificate, PHP version, WAF, logs, statistics and browser SSH. The panel needs the opt-in `hosting:manage` scope. File upload and downloads are streamed (not available over GraphQL or MCP).',
    toolset: { offered: 'by default', order: 3 },
    toolPrefixes: ['hosting'],
  },
  scopes: {
    'hosting:read': 'Hosting list and detail',
    'hosting:write': 'Hosting custom domain set, verify, remove',
    'hosting:manage': 'The whole hosting control panel, with file and shell access (opt-in)',
  },
  optIn: ['hosting:manage'],
  events: {
    order: 2,
    kinds: {
      'hosting.created': {
        scope: 'hosting:read',
        fields: { hostingId: str, domain: str, status: strOf('provisioning') },
      },
      // One kind for the control panel: a tab re-reads its part; no names, paths or contents are sent.
      'hosting.panel.changed': {
        scope: 'hosting:read',
        fields: { hostingId: str, part: strOf('databases'), action: strOf('created') },
      },
    },
    // An order accepted (provisioning); `hosting.created` says when it is active.
    liveChanges: {
      'hosting.status.changed': { scope: 'hosting:read', fields: { hostingId: str, status: strOf('provisioning') } },
    },
  },
  idPrefixes: {
    hosting: 'hst',
    hostingDatabase: 'hdb',
    hostingCronJob: 'hcj',
    hostingProtectedDir: 'hpd',
    hostingBackup: 'hbk',
    hostingSshSession: 'hss',
  },
  runtime: {
    binaryRoutes: ['hostingFileUpload', 'hostingFileDownload', 'hostingBackupDownload'],
    providerCallbacks: ['hostingDriver'],
  },
});
