import { builder } from '../../schema/builder.ts';
import { operation, type OperationMeta } from '../../schema/operation.ts';
import { listType, pageArgs } from '../../schema/pagination.ts';
import { createBackup, deleteBackup, listBackups, restoreBackup } from './backups.ts';
import { createDatabase, deleteDatabase, listDatabases } from './databases.ts';
import { deleteFile, listFiles, makeDirectory, readFile, renameFile, writeFile } from './files.ts';
import { disableGitWebhook, enableGitWebhook, gitDeploy, gitDeployKey, gitDisconnect, gitPull, gitStatus, gitWebhook } from './git.ts';
import {
  enableSshAccess, getCron, hostingStats, launchSsh, listProtectedDirs, LOG_LINES_DEFAULT, LOG_LINES_MAX, removeProtectedDir, requestWafAccess,
  setCron, setPhpVersion, setProtectedDir, sshAccess, stopSsh, tailLog, visitorStats, wafAccess, wafStatus,
} from './panel.ts';
import { detachCustomDomain, hostingDetail, listHosting, retryCertificate, setCustomDomain, verifyCustomDomain, type HostingView } from './service.ts';

/** Every control-panel operation: scope hosting:manage, area hosting. */
const panel = (rest: OperationMeta['rest'], tool: string, extra: Partial<OperationMeta> = {}) =>
  operation({ scope: 'hosting:manage', rest, area: 'hosting', tool, ...extra });

type Out<F extends (...args: any) => any> = Awaited<ReturnType<F>>;

// ------------------------------------------------------------------ accounts

const HostingCustomDomain = builder.objectRef<NonNullable<HostingView['customDomain']>>('HostingCustomDomain').implement({
  description: 'A custom domain: pending until verify finds its DNS pointing to the account, then attached.',
  fields: (t) => ({
    domain: t.exposeString('domain'),
    status: t.exposeString('status', { description: 'pending or attached.' }),
    attachedAt: t.expose('attachedAt', { type: 'DateTime', nullable: true }),
  }),
});

const HostingCertificate = builder.objectRef<HostingView['certificate']>('HostingCertificate').implement({
  description: 'The TLS certificate of the site.',
  fields: (t) => ({
    status: t.exposeString('status', { description: 'issued, pending or failed.' }),
    domains: t.exposeStringList('domains', { description: 'Names the certificate covers.' }),
    issuedAt: t.expose('issuedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    error: t.exposeString('error', { nullable: true, description: 'Why a name was left out at the last issuance.' }),
  }),
});

const HostingConnection = builder.objectRef<HostingView['connection']>('HostingConnection').implement({
  description: 'How to reach the account over SFTP and MySQL.',
  fields: (t) => ({
    host: t.exposeString('host', { description: 'SFTP host; also the CNAME target for a custom domain.' }),
    ip: t.exposeString('ip', { description: 'A-record target for a custom domain.' }),
    sftpPort: t.exposeInt('sftpPort'),
    username: t.exposeString('username'),
    homeDirectory: t.exposeString('homeDirectory', { description: 'The root of file-manager paths.' }),
    webRoot: t.exposeString('webRoot'),
    mysqlHost: t.exposeString('mysqlHost'),
    mysqlPort: t.exposeInt('mysqlPort'),
    databasePrefix: t.exposeString('databasePrefix', { description: 'Extra databases are named <databasePrefix><suffix>.' }),
  }),
});

const HostingAccount = builder.objectRef<HostingView>('HostingAccount').implement({
  description: 'A web-hosting account (scrubbed of upstream details).',
  fields: (t) => ({
    id: t.exposeID('id'),
    domain: t.exposeString('domain', { description: 'Primary domain.' }),
    status: t.exposeString('status', { description: 'provisioning or active.' }),
    productId: t.exposeString('productId', { description: 'Hosting plan.' }),
    php_version: t.exposeString('php_version'),
    ip: t.exposeString('ip'),
    customDomain: t.field({ type: HostingCustomDomain, nullable: true, resolve: (h) => h.customDomain }),
    certificate: t.field({ type: HostingCertificate, resolve: (h) => h.certificate }),
    connection: t.field({ type: HostingConnection, resolve: (h) => h.connection }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    provisionedAt: t.expose('provisionedAt', { type: 'DateTime', nullable: true }),
  }),
});

const HostingAccountList = listType('HostingAccountList', HostingAccount);

builder.queryField('hostingAccounts', (t) =>
  t.field({
    ...operation({ scope: 'hosting:read', rest: 'GET /hosting', area: 'hosting', tool: 'hosting_list' }),
    description: 'List the web-hosting accounts, newest first.',
    type: HostingAccountList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listHosting(ctx, args),
  }),
);

builder.queryField('hostingAccount', (t) =>
  t.field({
    ...operation({ scope: 'hosting:read', rest: 'GET /hosting/:id', area: 'hosting', tool: 'hosting_get' }),
    description: 'Get one web-hosting account with its connection info.',
    type: HostingAccount,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => hostingDetail(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingCustomDomainSet', (t) =>
  t.field({
    ...operation({ scope: 'hosting:write', rest: 'PUT /hosting/:id/custom-domain', area: 'hosting', tool: 'hosting_custom_domain_set' }),
    description: 'Set the custom domain (pending until verify finds its DNS pointing here).',
    type: HostingAccount,
    args: { id: t.arg.id({ required: true }), domain: t.arg.string({ required: true, description: 'A domain name such as shop.example.com.' }) },
    resolve: (_root, args, ctx) => setCustomDomain(ctx, String(args.id), args.domain),
  }),
);

builder.mutationField('hostingCustomDomainVerify', (t) =>
  t.field({
    ...operation({ scope: 'hosting:write', rest: 'POST /hosting/:id/custom-domain/verify', area: 'hosting', tool: 'hosting_custom_domain_verify', hints: { idempotent: true } }),
    description: 'Re-check the custom domain DNS and attach it once it points to the account.',
    type: HostingAccount,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => verifyCustomDomain(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingCustomDomainDelete', (t) =>
  t.field({
    ...operation({ scope: 'hosting:write', rest: 'DELETE /hosting/:id/custom-domain', area: 'hosting', tool: 'hosting_custom_domain_delete' }),
    description: 'Detach the custom domain from the account.',
    type: HostingAccount,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => detachCustomDomain(ctx, String(args.id)),
  }),
);

// ------------------------------------------------------------------ stats, logs, certificate, PHP

const Usage = builder.objectRef<{ used: number; quota: number }>('HostingUsage').implement({
  fields: (t) => ({ used: t.exposeInt('used'), quota: t.exposeInt('quota') }),
});
const ByteUsage = builder.objectRef<{ usedBytes: number; quotaBytes: number; periodStart?: Date }>('HostingByteUsage').implement({
  fields: (t) => ({
    usedBytes: t.exposeFloat('usedBytes'),
    quotaBytes: t.exposeFloat('quotaBytes'),
    periodStart: t.expose('periodStart', { type: 'DateTime', nullable: true, description: 'Start of the counting period (bandwidth: the calendar month, UTC).' }),
  }),
});

const HostingStats = builder.objectRef<Out<typeof hostingStats>>('HostingStats').implement({
  description: 'Disk usage, inode count, bandwidth and mailbox count of a hosting account, with the plan quotas.',
  fields: (t) => ({
    id: t.exposeID('id'),
    sampledAt: t.expose('sampledAt', { type: 'DateTime' }),
    disk: t.field({ type: ByteUsage, resolve: (s) => s.disk }),
    inodes: t.field({ type: Usage, resolve: (s) => s.inodes }),
    bandwidth: t.field({ type: ByteUsage, resolve: (s) => s.bandwidth }),
    mailboxes: t.field({ type: Usage, resolve: (s) => s.mailboxes }),
    databases: t.field({ type: Usage, resolve: (s) => s.databases }),
  }),
});

builder.queryField('hostingStats', (t) =>
  t.field({
    ...panel('GET /hosting/:id/stats', 'hosting_stats'),
    description: 'Disk usage, inode count, bandwidth and mailbox count of a hosting account.',
    type: HostingStats,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => hostingStats(ctx, String(args.id)),
  }),
);

const HostingLog = builder.objectRef<Out<typeof tailLog>>('HostingLog').implement({
  description: 'The tail of a web-server log, oldest line first.',
  fields: (t) => ({ kind: t.exposeString('kind'), lines: t.exposeStringList('lines') }),
});

builder.queryField('hostingLogs', (t) =>
  t.field({
    ...panel('GET /hosting/:id/logs', 'hosting_logs'),
    description: 'Tail of the access or error log of the site.',
    type: HostingLog,
    args: {
      id: t.arg.id({ required: true }),
      kind: t.arg.string({ required: true, description: 'access or error.' }),
      lines: t.arg.int({ required: false, description: `Lines from the end, 1 to ${LOG_LINES_MAX} (default ${LOG_LINES_DEFAULT}).` }),
    },
    resolve: (_root, args, ctx) => tailLog(ctx, String(args.id), args.kind, args.lines),
  }),
);

builder.mutationField('hostingCertRetry', (t) =>
  t.field({
    ...panel('POST /hosting/:id/cert/retry', 'hosting_cert_retry', { hints: { idempotent: true } }),
    description: 'Retry certificate issuance now (the DNS of each name is checked again).',
    type: HostingCertificate,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => retryCertificate(ctx, String(args.id)),
  }),
);

const HostingPhpVersion = builder.objectRef<Out<typeof setPhpVersion>>('HostingPhpVersion').implement({
  description: 'The PHP-FPM version of the site and the versions its plan offers.',
  fields: (t) => ({ id: t.exposeID('id'), php_version: t.exposeString('php_version'), availableVersions: t.exposeStringList('availableVersions') }),
});

builder.mutationField('hostingPhpVersionSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/php-version', 'hosting_php_version_set'),
    description: 'Switch the PHP-FPM version of the site to one its plan offers.',
    type: HostingPhpVersion,
    args: { id: t.arg.id({ required: true }), php_version: t.arg.string({ required: true, description: 'One of the plan phpVersions, e.g. 8.3.' }) },
    resolve: (_root, args, ctx) => setPhpVersion(ctx, String(args.id), args.php_version),
  }),
);

const VisitorPoint = builder.objectRef<Out<typeof visitorStats>['series'][number]>('HostingVisitorPoint').implement({
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime' }),
    visits: t.exposeInt('visits'),
    uniqueVisitors: t.exposeInt('uniqueVisitors'),
    pageViews: t.exposeInt('pageViews'),
  }),
});
const TopPage = builder.objectRef<{ path: string; views: number }>('HostingTopPage').implement({
  fields: (t) => ({ path: t.exposeString('path'), views: t.exposeInt('views') }),
});
const HostingVisitorStats = builder.objectRef<Out<typeof visitorStats>>('HostingVisitorStats').implement({
  description: 'Visitor statistics over a period: totals, top pages and a series (hourly for 24h, daily otherwise).',
  fields: (t) => ({
    id: t.exposeID('id'),
    period: t.exposeString('period'),
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    visits: t.exposeInt('visits'),
    uniqueVisitors: t.exposeInt('uniqueVisitors'),
    pageViews: t.exposeInt('pageViews'),
    bandwidthBytes: t.exposeFloat('bandwidthBytes'),
    topPages: t.field({ type: [TopPage], resolve: (s) => s.topPages }),
    series: t.field({ type: [VisitorPoint], resolve: (s) => s.series }),
  }),
});

builder.queryField('hostingVisitorStats', (t) =>
  t.field({
    ...panel('GET /hosting/:id/visitor-stats', 'hosting_visitor_stats'),
    description: 'Visitor statistics of the site over 24h, 7d or 30d.',
    type: HostingVisitorStats,
    args: { id: t.arg.id({ required: true }), period: t.arg.string({ required: true, description: '24h, 7d or 30d.' }) },
    resolve: (_root, args, ctx) => visitorStats(ctx, String(args.id), args.period),
  }),
);

// ------------------------------------------------------------------ cron

const HostingCronJob = builder.objectRef<{ schedule: string; command: string }>('HostingCronJob').implement({
  fields: (t) => ({ schedule: t.exposeString('schedule'), command: t.exposeString('command') }),
});
const HostingCrontab = builder.objectRef<Out<typeof getCron>>('HostingCrontab').implement({
  description: 'The crontab: its fixed header and the jobs, in order.',
  fields: (t) => ({ header: t.exposeString('header'), jobs: t.field({ type: [HostingCronJob], resolve: (c) => c.jobs }) }),
});
const HostingCronJobInput = builder.inputType('HostingCronJobInput', {
  description: 'One crontab line.',
  fields: (t) => ({
    schedule: t.string({ required: true, description: 'Five cron fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly.' }),
    command: t.string({ required: true, description: 'A single line, at most 1000 characters.' }),
  }),
});

builder.queryField('hostingCron', (t) =>
  t.field({
    ...panel('GET /hosting/:id/cron', 'hosting_cron_get'),
    description: 'Get the crontab header and jobs of the account.',
    type: HostingCrontab,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getCron(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingCronSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/cron', 'hosting_cron_set'),
    description: 'Replace every cron job of the account (an empty list clears the crontab).',
    type: HostingCrontab,
    args: { id: t.arg.id({ required: true }), jobs: t.arg({ type: [HostingCronJobInput], required: true, description: 'At most 50 jobs.' }) },
    resolve: (_root, args, ctx) => setCron(ctx, String(args.id), args.jobs),
  }),
);

// ------------------------------------------------------------------ protected directories

const HostingProtectedDir = builder.objectRef<Out<typeof setProtectedDir>>('HostingProtectedDir').implement({
  description: 'A password-protected directory (the password is never returned).',
  fields: (t) => ({
    path: t.exposeString('path'),
    basic_user: t.exposeString('basic_user'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
const PathDeleted = builder.objectRef<{ path: string; deleted: boolean }>('HostingPathDeleted').implement({
  fields: (t) => ({ path: t.exposeString('path'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('hostingProtectedDirs', (t) =>
  t.field({
    ...panel('GET /hosting/:id/protected-dirs', 'hosting_protected_dirs_list'),
    description: 'List the password-protected directories of the site.',
    type: [HostingProtectedDir],
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => listProtectedDirs(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingProtectedDirSet', (t) =>
  t.field({
    ...panel('POST /hosting/:id/protected-dirs', 'hosting_protected_dir_set', { hints: { idempotent: true } }),
    description: 'Protect a directory with HTTP basic auth, or change its user and password.',
    type: HostingProtectedDir,
    args: {
      id: t.arg.id({ required: true }),
      path: t.arg.string({ required: true, description: 'An existing directory, e.g. /public_html/admin.' }),
      basic_user: t.arg.string({ required: true, description: '1 to 64 letters, digits, ".", "-" or "_".' }),
      password: t.arg.string({ required: true, description: '8 to 72 bytes; stored only as a bcrypt hash.' }),
    },
    resolve: (_root, args, ctx) => setProtectedDir(ctx, String(args.id), args),
  }),
);

builder.mutationField('hostingProtectedDirDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/protected-dirs', 'hosting_protected_dir_delete'),
    description: 'Remove the password protection of a directory.',
    type: PathDeleted,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: true, description: 'The protected directory.' }) },
    resolve: (_root, args, ctx) => removeProtectedDir(ctx, String(args.id), args.path),
  }),
);

// ------------------------------------------------------------------ WAF

const HostingWafAccess = builder.objectRef<Out<typeof wafAccess>>('HostingWafAccess').implement({
  description: 'Temporary access to the web application firewall log.',
  fields: (t) => ({ active: t.exposeBoolean('active'), expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }) }),
});
const HostingWaf = builder.objectRef<Out<typeof wafStatus>>('HostingWaf').implement({
  description: 'Web application firewall status.',
  fields: (t) => ({
    id: t.exposeID('id'),
    enabled: t.exposeBoolean('enabled'),
    mode: t.exposeString('mode'),
    ruleset: t.exposeString('ruleset'),
    blockedRequests24h: t.exposeInt('blockedRequests24h'),
    logAccess: t.field({ type: HostingWafAccess, resolve: (w) => w.logAccess }),
  }),
});

builder.queryField('hostingWaf', (t) =>
  t.field({
    ...panel('GET /hosting/:id/waf', 'hosting_waf_status'),
    description: 'Get the web application firewall status of the site.',
    type: HostingWaf,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => wafStatus(ctx, String(args.id)),
  }),
);

builder.queryField('hostingWafAccess', (t) =>
  t.field({
    ...panel('GET /hosting/:id/waf/access', 'hosting_waf_access_get', { notTool: 'temporary WAF-log access opens the log viewer for a person at a browser' }),
    description: 'Whether temporary WAF-log access is active, and until when.',
    type: HostingWafAccess,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => wafAccess(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingWafAccessRequest', (t) =>
  t.field({
    ...panel('POST /hosting/:id/waf/access', 'hosting_waf_access_request', { notTool: 'temporary WAF-log access opens the log viewer for a person at a browser' }),
    description: 'Request temporary WAF-log access (60 minutes from now).',
    type: HostingWafAccess,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => requestWafAccess(ctx, String(args.id)),
  }),
);

// ------------------------------------------------------------------ browser SSH

const HostingSshSession = builder.objectRef<{ id: string; expiresAt: Date }>('HostingSshSession').implement({
  fields: (t) => ({ id: t.exposeID('id'), expiresAt: t.expose('expiresAt', { type: 'DateTime' }) }),
});
const HostingSshAccess = builder.objectRef<Out<typeof sshAccess>>('HostingSshAccess').implement({
  description: 'Whether browser-SSH access is enabled, and the live session if any.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    enabledAt: t.expose('enabledAt', { type: 'DateTime', nullable: true }),
    session: t.field({ type: HostingSshSession, nullable: true, resolve: (a) => a.session }),
  }),
});
const HostingSshLaunch = builder.objectRef<Out<typeof launchSsh>>('HostingSshLaunch').implement({
  description: 'A browser-SSH session: open the URL (or pass the token) before it expires.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    url: t.exposeString('url'),
    token: t.exposeString('token', { description: 'Shown once; stored only as a hash.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});
const HostingSshStop = builder.objectRef<Out<typeof stopSsh>>('HostingSshStop').implement({
  fields: (t) => ({ stopped: t.exposeBoolean('stopped', { description: 'False when no session was live.' }), sessionId: t.exposeString('sessionId', { nullable: true }) }),
});

builder.queryField('hostingSshAccess', (t) =>
  t.field({
    ...panel('GET /hosting/:id/ssh-terminal/access', 'hosting_ssh_access_get', { notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)' }),
    description: 'Whether browser-SSH access is enabled for the account.',
    type: HostingSshAccess,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => sshAccess(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingSshAccessEnable', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/access', 'hosting_ssh_access_enable', { notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)', hints: { idempotent: true } }),
    description: 'Enable browser-SSH access for the account.',
    type: HostingSshAccess,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => enableSshAccess(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingSshLaunch', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/launch', 'hosting_ssh_launch', { notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)' }),
    description: 'Start a browser-SSH session; returns a short-lived URL and token.',
    type: HostingSshLaunch,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => launchSsh(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingSshStop', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/stop', 'hosting_ssh_stop', { notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)', hints: { idempotent: true } }),
    description: 'Stop the live browser-SSH session.',
    type: HostingSshStop,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => stopSsh(ctx, String(args.id)),
  }),
);

// ------------------------------------------------------------------ git deploy

const HostingGitCommit = builder.objectRef<{ sha: string; message: string }>('HostingGitCommit').implement({
  fields: (t) => ({ sha: t.exposeString('sha'), message: t.exposeString('message') }),
});
const HostingGitStatus = builder.objectRef<Out<typeof gitStatus>>('HostingGitStatus').implement({
  description: 'Git-deploy status: the repository, the deployed commit and the last error.',
  fields: (t) => ({
    connected: t.exposeBoolean('connected'),
    repo_url: t.exposeString('repo_url', { nullable: true }),
    branch: t.exposeString('branch', { nullable: true }),
    subdir: t.exposeString('subdir', { nullable: true, description: 'Directory under /public_html the repository is published to ("" for public_html itself).' }),
    status: t.exposeString('status', { description: 'not_connected, deployed or failed.' }),
    commit: t.field({ type: HostingGitCommit, nullable: true, resolve: (s) => s.commit }),
    lastDeployedAt: t.expose('lastDeployedAt', { type: 'DateTime', nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    webhookEnabled: t.exposeBoolean('webhookEnabled'),
  }),
});
const HostingDeployKey = builder.objectRef<Out<typeof gitDeployKey>>('HostingDeployKey').implement({
  description: 'The SSH deploy key of the account: add the public key to the repository as a read-only deploy key.',
  fields: (t) => ({ type: t.exposeString('type'), publicKey: t.exposeString('publicKey'), fingerprint: t.exposeString('fingerprint') }),
});
const HostingGitWebhook = builder.objectRef<Out<typeof gitWebhook>>('HostingGitWebhook').implement({
  description: 'Push-to-deploy: the URL to give the repository host and the secret it signs with.',
  fields: (t) => ({ enabled: t.exposeBoolean('enabled'), url: t.exposeString('url', { nullable: true }), secret: t.exposeString('secret', { nullable: true }) }),
});

builder.queryField('hostingGit', (t) =>
  t.field({
    ...panel('GET /hosting/:id/git', 'hosting_git_status'),
    description: 'Get the git-deploy status of the site.',
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => gitStatus(ctx, String(args.id)),
  }),
);

builder.queryField('hostingGitDeployKey', (t) =>
  t.field({
    ...panel('GET /hosting/:id/git/deploy-key', 'hosting_git_deploy_key'),
    description: 'Get the SSH deploy key to add to the repository.',
    type: HostingDeployKey,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => gitDeployKey(ctx, String(args.id)),
  }),
);

builder.queryField('hostingGitWebhook', (t) =>
  t.field({
    ...panel('GET /hosting/:id/git/webhook', 'hosting_git_webhook_get', { notTool: 'hands out the push-to-deploy signing secret' }),
    description: 'Get the push-to-deploy webhook URL and secret.',
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => gitWebhook(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingGitWebhookEnable', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/webhook', 'hosting_git_webhook_enable', { notTool: 'hands out the push-to-deploy signing secret', hints: { idempotent: true } }),
    description: 'Enable push-to-deploy; returns the webhook URL and secret.',
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => enableGitWebhook(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingGitWebhookDisable', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/git/webhook', 'hosting_git_webhook_disable'),
    description: 'Disable push-to-deploy (the secret is discarded).',
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => disableGitWebhook(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingGitDeploy', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/deploy', 'hosting_git_deploy', { hints: { destructive: true } }),
    description: 'Clone a repository branch and publish it into the site.',
    type: HostingGitStatus,
    args: {
      id: t.arg.id({ required: true }),
      repo_url: t.arg.string({ required: true, description: 'SSH address: git@host:owner/repo.git or ssh://[user@]host[:port]/path.' }),
      branch: t.arg.string({ required: false, description: 'Branch to deploy (default main).' }),
      subdir: t.arg.string({ required: false, description: 'Directory under /public_html to publish into (default: public_html itself).' }),
    },
    resolve: (_root, args, ctx) => gitDeploy(ctx, String(args.id), args),
  }),
);

builder.mutationField('hostingGitPull', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/pull', 'hosting_git_pull', { hints: { destructive: true } }),
    description: 'Pull the latest commit of the deployed branch and publish it.',
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => gitPull(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingGitDisconnect', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/git', 'hosting_git_disconnect'),
    description: 'Disconnect git deploy (the published files stay).',
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => gitDisconnect(ctx, String(args.id)),
  }),
);

// ------------------------------------------------------------------ files

const HostingFile = builder.objectRef<Out<typeof makeDirectory>>('HostingFile').implement({
  description: 'A file or directory of the site.',
  fields: (t) => ({
    name: t.exposeString('name'),
    path: t.exposeString('path', { description: 'Absolute inside the account ("/" is its home).' }),
    type: t.exposeString('type', { description: 'file, directory, symlink or other.' }),
    sizeBytes: t.exposeFloat('sizeBytes'),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    permissions: t.exposeString('permissions', { description: 'Octal, e.g. 0644.' }),
  }),
});
const HostingDirectory = builder.objectRef<Out<typeof listFiles>>('HostingDirectory').implement({
  description: 'A directory listing: directories first, then files, by name.',
  fields: (t) => ({
    path: t.exposeString('path'),
    entries: t.field({ type: [HostingFile], resolve: (d) => d.entries }),
    truncated: t.exposeBoolean('truncated', { description: 'True when the directory holds more than 1000 entries.' }),
  }),
});
const HostingTextFile = builder.objectRef<Out<typeof readFile>>('HostingTextFile').implement({
  description: 'The contents of a UTF-8 text file.',
  fields: (t) => ({
    path: t.exposeString('path'),
    content: t.exposeString('content'),
    sizeBytes: t.exposeFloat('sizeBytes'),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
  }),
});
const HostingFileDeleted = builder.objectRef<Out<typeof deleteFile>>('HostingFileDeleted').implement({
  fields: (t) => ({ path: t.exposeString('path'), type: t.exposeString('type'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('hostingFilesList', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files', 'hosting_files_list'),
    description: 'List a directory of the site (default /public_html).',
    type: HostingDirectory,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: false, description: 'Directory, absolute inside the account (default /public_html).' }) },
    resolve: (_root, args, ctx) => listFiles(ctx, String(args.id), args.path),
  }),
);

builder.queryField('hostingFileRead', (t) =>
  t.field({
    ...panel('GET /hosting/:id/files/read', 'hosting_file_read'),
    description: 'Read a UTF-8 text file of at most 1 MiB (binary files: download them).',
    type: HostingTextFile,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }) },
    resolve: (_root, args, ctx) => readFile(ctx, String(args.id), args.path),
  }),
);

builder.mutationField('hostingFileWrite', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/files', 'hosting_file_write'),
    description: 'Create or overwrite a text file (its directory must exist).',
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true }),
      path: t.arg.string({ required: true, description: 'File, absolute inside the account.' }),
      content: t.arg.string({ required: true, description: 'UTF-8 text, at most 1 MiB.' }),
    },
    resolve: (_root, args, ctx) => writeFile(ctx, String(args.id), args.path, args.content),
  }),
);

builder.mutationField('hostingFileDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/files', 'hosting_file_delete'),
    description: 'Delete a file, or a directory (recursive=true when it is not empty).',
    type: HostingFileDeleted,
    args: {
      id: t.arg.id({ required: true }),
      path: t.arg.string({ required: true, description: 'File or directory, absolute inside the account.' }),
      recursive: t.arg.boolean({ required: false, description: 'Delete a non-empty directory with its contents.' }),
    },
    resolve: (_root, args, ctx) => deleteFile(ctx, String(args.id), args.path, args.recursive),
  }),
);

builder.mutationField('hostingFileMkdir', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/mkdir', 'hosting_file_mkdir'),
    description: 'Create a directory (its parent must exist).',
    type: HostingFile,
    args: { id: t.arg.id({ required: true }), path: t.arg.string({ required: true, description: 'New directory, absolute inside the account.' }) },
    resolve: (_root, args, ctx) => makeDirectory(ctx, String(args.id), args.path),
  }),
);

builder.mutationField('hostingFileRename', (t) =>
  t.field({
    ...panel('POST /hosting/:id/files/rename', 'hosting_file_rename'),
    description: 'Rename or move a file or directory (the target must not exist).',
    type: HostingFile,
    args: {
      id: t.arg.id({ required: true }),
      from: t.arg.string({ required: true, description: 'Existing path.' }),
      to: t.arg.string({ required: true, description: 'New path; its directory must exist.' }),
    },
    resolve: (_root, args, ctx) => renameFile(ctx, String(args.id), args.from, args.to),
  }),
);

// ------------------------------------------------------------------ backups

const HostingBackup = builder.objectRef<Out<typeof createBackup>>('HostingBackup').implement({
  description: 'A site backup (restore point): the files and the databases dumps, as a gzip tarball.',
  fields: (t) => ({
    id: t.exposeID('id'),
    hostingId: t.exposeString('hostingId'),
    status: t.exposeString('status', { description: 'available.' }),
    sizeBytes: t.exposeInt('sizeBytes'),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the archive, hex.' }),
    databases: t.exposeStringList('databases', { description: 'Databases whose dumps it holds.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
const HostingBackupDeleted = builder.objectRef<{ id: string; deleted: boolean }>('HostingBackupDeleted').implement({
  fields: (t) => ({ id: t.exposeID('id'), deleted: t.exposeBoolean('deleted') }),
});
const HostingBackupRestore = builder.objectRef<Out<typeof restoreBackup>>('HostingBackupRestore').implement({
  description: 'A finished restore: the site and its databases are as in the backup.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The backup.' }),
    hostingId: t.exposeString('hostingId'),
    restoredAt: t.expose('restoredAt', { type: 'DateTime' }),
    databases: t.exposeStringList('databases'),
  }),
});

builder.queryField('hostingBackups', (t) =>
  t.field({
    ...panel('GET /hosting/:id/backups', 'hosting_backups_list'),
    description: 'List the backups (restore points) of the site, newest first.',
    type: [HostingBackup],
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => listBackups(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingBackupCreate', (t) =>
  t.field({
    ...panel('POST /hosting/:id/backups', 'hosting_backup_create', { idempotent: true }),
    description: 'Create a backup of the site files and databases now.',
    type: HostingBackup,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => createBackup(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingBackupDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/backups/:bid', 'hosting_backup_delete'),
    description: 'Delete a backup and its archive.',
    type: HostingBackupDeleted,
    args: { id: t.arg.id({ required: true }), bid: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteBackup(ctx, String(args.id), String(args.bid)),
  }),
);

builder.mutationField('hostingBackupRestore', (t) =>
  t.field({
    ...panel('POST /hosting/:id/backups/:bid/restore', 'hosting_backup_restore', { hints: { destructive: true, idempotent: true } }),
    description: 'Restore the site files and databases from a backup (replaces the current ones).',
    type: HostingBackupRestore,
    args: { id: t.arg.id({ required: true }), bid: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => restoreBackup(ctx, String(args.id), String(args.bid)),
  }),
);

// ------------------------------------------------------------------ databases

const HostingDatabase = builder.objectRef<Out<typeof createDatabase>>('HostingDatabase').implement({
  description: 'An extra MySQL database (its user has the same name).',
  fields: (t) => ({
    name: t.exposeString('name'),
    suffix: t.exposeString('suffix'),
    user: t.exposeString('user'),
    host: t.exposeString('host'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
const HostingDatabaseDeleted = builder.objectRef<{ name: string; deleted: boolean }>('HostingDatabaseDeleted').implement({
  fields: (t) => ({ name: t.exposeString('name'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('hostingDatabases', (t) =>
  t.field({
    ...panel('GET /hosting/:id/databases', 'hosting_databases_list'),
    description: 'List the extra MySQL databases of the account.',
    type: [HostingDatabase],
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => listDatabases(ctx, String(args.id)),
  }),
);

builder.mutationField('hostingDatabaseCreate', (t) =>
  t.field({
    ...panel('POST /hosting/:id/databases', 'hosting_database_create', { idempotent: true }),
    description: 'Create an extra MySQL database named <prefix>_<suffix>.',
    type: HostingDatabase,
    args: { id: t.arg.id({ required: true }), suffix: t.arg.string({ required: true, description: '1 to 16 lowercase letters, digits or underscores.' }) },
    resolve: (_root, args, ctx) => createDatabase(ctx, String(args.id), args.suffix),
  }),
);

builder.mutationField('hostingDatabaseDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/databases/:name', 'hosting_database_delete'),
    description: 'Delete an extra MySQL database and its data.',
    type: HostingDatabaseDeleted,
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true, description: 'Full database name.' }) },
    resolve: (_root, args, ctx) => deleteDatabase(ctx, String(args.id), args.name),
  }),
);
