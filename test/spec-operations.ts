/**
 * Every operation of the spec (../shared/spec/cloud-account-api.md), as the spec lists it:
 * method, path relative to /v1, scope. The coverage test checks each against the schema's
 * operation metadata; later issues show their coverage here. The one operation the spec
 * implies without a path (server password reset) is listed with the path we chose.
 */
export interface SpecOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  scope: string;
  area: string;
}

const rows = (area: string, scope: string | null, text: string): SpecOperation[] =>
  text
    .trim()
    .split('\n')
    .map((line) => {
      const [method, path, rowScope] = line.trim().split(/\s+/);
      return { method: method as SpecOperation['method'], path, scope: rowScope ?? scope!, area };
    });

export const SPEC_OPERATIONS: SpecOperation[] = [
  ...rows(
    'account',
    null,
    `
    GET /account account:read`,
  ),
  ...rows(
    'servers',
    null,
    `
    GET /servers servers:read
    GET /servers/:id servers:read
    DELETE /servers/:id servers:destroy
    GET /servers/:id/stats servers:read
    GET /servers/:id/snapshots servers:read
    POST /servers/:id/snapshots servers:write
    DELETE /servers/:id/snapshots/:snapshotId servers:write
    POST /servers/:id/snapshots/:snapshotId/revert servers:destroy
    POST /servers/:id/power/:action servers:write
    POST /servers/:id/reinstall servers:destroy
    GET /servers/:id/ips servers:read
    PUT /servers/:id/ips/:ip/ptr servers:write
    DELETE /servers/:id/ips/:ip/ptr servers:write
    GET /servers/:id/plan-options servers:read
    POST /servers/:id/change-plan servers:write
    POST /servers/:id/sso servers:read
    GET /servers/:id/addons servers:read
    POST /servers/:id/addons servers:write
    DELETE /servers/:id/addons/:addonId servers:write
    POST /servers/:id/password-reset servers:write`,
  ),
  ...rows(
    'pools',
    null,
    `
    GET /pools/catalogue servers:read
    POST /pools/quote servers:read
    GET /pools servers:read
    GET /pools/:id servers:read
    POST /pools servers:write
    POST /pools/:id/resize-quote servers:read
    PATCH /pools/:id servers:write
    POST /pools/:id/servers servers:write
    GET /pools/:id/ips servers:read
    POST /pools/:id/ips/apply servers:write
    DELETE /pools/:id servers:destroy`,
  ),
  ...rows(
    'hosting',
    null,
    `
    GET /hosting hosting:read
    GET /hosting/:id hosting:read
    PUT /hosting/:id/custom-domain hosting:write
    POST /hosting/:id/custom-domain/verify hosting:write
    DELETE /hosting/:id/custom-domain hosting:write`,
  ),
  ...rows(
    'hosting',
    'hosting:manage',
    `
    GET /hosting/:id/stats
    GET /hosting/:id/logs
    POST /hosting/:id/cert/retry
    PUT /hosting/:id/php-version
    GET /hosting/:id/cron
    PUT /hosting/:id/cron
    GET /hosting/:id/protected-dirs
    POST /hosting/:id/protected-dirs
    DELETE /hosting/:id/protected-dirs
    GET /hosting/:id/waf
    GET /hosting/:id/waf/access
    POST /hosting/:id/waf/access
    GET /hosting/:id/ssh-terminal/access
    POST /hosting/:id/ssh-terminal/access
    POST /hosting/:id/ssh-terminal/launch
    POST /hosting/:id/ssh-terminal/stop
    GET /hosting/:id/git
    GET /hosting/:id/git/deploy-key
    GET /hosting/:id/git/webhook
    POST /hosting/:id/git/webhook
    DELETE /hosting/:id/git/webhook
    POST /hosting/:id/git/deploy
    POST /hosting/:id/git/pull
    DELETE /hosting/:id/git
    GET /hosting/:id/files
    GET /hosting/:id/files/read
    PUT /hosting/:id/files
    DELETE /hosting/:id/files
    GET /hosting/:id/files/download
    POST /hosting/:id/files/upload
    POST /hosting/:id/files/mkdir
    POST /hosting/:id/files/rename
    GET /hosting/:id/backups
    POST /hosting/:id/backups
    DELETE /hosting/:id/backups/:bid
    POST /hosting/:id/backups/:bid/restore
    GET /hosting/:id/backups/:bid/download
    GET /hosting/:id/visitor-stats
    GET /hosting/:id/databases
    POST /hosting/:id/databases
    DELETE /hosting/:id/databases/:name`,
  ),
  ...rows(
    'mail',
    null,
    `
    GET /mail/setup mail:read
    GET /mail/domains mail:read
    POST /mail/domains mail:write
    DELETE /mail/domains/:id mail:write
    GET /mail/domains/:id/mailboxes mail:read
    GET /mail/domains/:id/aliases mail:read
    GET /mail/mailboxes mail:read
    POST /mail/mailboxes mail:write
    PATCH /mail/mailboxes/:id/password mail:write
    DELETE /mail/mailboxes/:id mail:write
    POST /mail/aliases mail:write
    DELETE /mail/aliases/:id mail:write`,
  ),
  ...rows(
    'domains',
    null,
    `
    GET /domains domains:read
    GET /domains/:id domains:read
    PATCH /domains/:id domains:write`,
  ),
  ...rows(
    'billing',
    null,
    `
    GET /billing/invoices billing:read
    GET /billing/invoices/:id billing:read
    GET /billing/wallet billing:read
    GET /billing/wallet/transactions billing:read
    PATCH /billing/wallet/auto-recharge billing:write`,
  ),
  ...rows(
    'tickets',
    null,
    `
    GET /tickets tickets:read
    GET /tickets/:id tickets:read
    POST /tickets tickets:write
    POST /tickets/:id/reply tickets:write
    POST /tickets/:id/close tickets:write`,
  ),
  ...rows(
    'webhooks',
    null,
    `
    GET /webhooks webhooks:read
    POST /webhooks webhooks:write
    GET /webhooks/:id webhooks:read
    PATCH /webhooks/:id webhooks:write
    DELETE /webhooks/:id webhooks:write
    POST /webhooks/:id/rotate-secret webhooks:write
    GET /webhooks/:id/deliveries webhooks:read
    POST /webhooks/:id/deliveries/:deliveryId/redeliver webhooks:write`,
  ),
];

/**
 * Operations added after the spec's latest revision (1.15), each listed under the revision of the
 * README's changelog that added it: the spec's operations keep their paths and bodies, and
 * nothing else is bound.
 */
export const LATER_OPERATIONS: (SpecOperation & { revision: string })[] = [
  { revision: '1.16', method: 'POST', path: '/servers', scope: 'servers:write', area: 'servers' },
  { revision: '1.16', method: 'GET', path: '/servers/catalogue', scope: 'servers:read', area: 'servers' },
  { revision: '1.16', method: 'POST', path: '/billing/invoices/:id/pay', scope: 'billing:write', area: 'billing' },
  { revision: '1.16', method: 'POST', path: '/billing/wallet/deposits', scope: 'billing:write', area: 'billing' },
  { revision: '1.16', method: 'GET', path: '/events', scope: 'account:read', area: 'account' },
  { revision: '1.16', method: 'POST', path: '/webhooks/:id/test', scope: 'webhooks:write', area: 'webhooks' },
  { revision: '1.16', method: 'POST', path: '/servers/:id/console', scope: 'servers:write', area: 'servers' },
  { revision: '1.16', method: 'PATCH', path: '/account', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'POST', path: '/account/password', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'GET', path: '/account/sessions', scope: 'account:read', area: 'account' },
  { revision: '1.16', method: 'DELETE', path: '/account/sessions/:id', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'POST', path: '/account/sessions/end-others', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'GET', path: '/account/ssh-keys', scope: 'account:read', area: 'account' },
  { revision: '1.16', method: 'POST', path: '/account/ssh-keys', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'DELETE', path: '/account/ssh-keys/:id', scope: 'account:write', area: 'account' },
  { revision: '1.16', method: 'GET', path: '/account/summary', scope: 'account:read', area: 'account' },
  {
    revision: '1.16',
    method: 'POST',
    path: '/hosting/:id/databases/:name/password',
    scope: 'hosting:manage',
    area: 'hosting',
  },
];

/** Binary streams: served by hand-written routes with the same auth, scope and errors, not by schema fields. */
export const BINARY_ROUTES = new Set([
  'POST /hosting/:id/files/upload',
  'GET /hosting/:id/files/download',
  'GET /hosting/:id/backups/:bid/download',
]);
