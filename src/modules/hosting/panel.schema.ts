import { builder } from '../../schema/builder.ts';
import { rules } from '../../schema/input-rules.ts';
import { listType, wholeList } from '../../schema/pagination.ts';
import {
  enableSshAccess, getCron, hostingStats, launchSsh, listProtectedDirs, LOG_LINES_DEFAULT, PANEL_RULES, removeProtectedDir, requestWafAccess,
  setCron, setPhpVersion, setProtectedDir, sshAccess, stopSsh, tailLog, visitorStats, wafAccess, wafStatus,
} from './panel.ts';
import { retryCertificate } from './service.ts';
import { HostingCertificate } from './accounts.schema.ts';
import { panel, type Out } from './panel-operation.ts';

// The control panel: stats, logs, certificate, PHP, cron, protected directories, WAF, browser SSH.

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
    ...panel('GET /hosting/:id/stats', 'hosting_stats', { summary: 'Get hosting usage',
      description: 'Disk, inode, bandwidth (this calendar month, UTC), mailbox and database usage of a hosting account, with the plan quotas.' }),
    type: HostingStats,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => hostingStats(ctx, args.id),
  }),
);

const HostingLog = builder.objectRef<Out<typeof tailLog>>('HostingLog').implement({
  description: 'The tail of a web-server log, oldest line first.',
  fields: (t) => ({ kind: t.exposeString('kind'), lines: t.exposeStringList('lines') }),
});

builder.queryField('hostingLogs', (t) =>
  t.field({
    ...panel('GET /hosting/:id/logs', 'hosting_logs', { summary: 'Tail a site log',
      description: 'The last lines of the access or error log of the site, oldest first.' }),
    type: HostingLog,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      kind: t.arg.string({ required: true, description: 'access or error.', ...rules(PANEL_RULES.logKind) }),
      lines: t.arg.int({ required: false, description: `Lines from the end (default ${LOG_LINES_DEFAULT}).`, ...rules(PANEL_RULES.logLines) }),
    },
    resolve: (_root, args, ctx) => tailLog(ctx, args.id, args.kind as 'access' | 'error', args.lines),
  }),
);

builder.mutationField('hostingCertRetry', (t) =>
  t.field({
    ...panel('POST /hosting/:id/cert/retry', 'hosting_cert_retry', { summary: 'Retry the certificate',
      description: 'Retry certificate issuance now: the DNS of each name is checked again. Answers the certificate state.', hints: { idempotent: true } }),
    type: HostingCertificate,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => retryCertificate(ctx, args.id),
  }),
);

const HostingPhpVersion = builder.objectRef<Out<typeof setPhpVersion>>('HostingPhpVersion').implement({
  description: 'The PHP-FPM version of the site and the versions its plan offers.',
  fields: (t) => ({ id: t.exposeID('id'), php_version: t.exposeString('php_version'), availableVersions: t.exposeStringList('availableVersions') }),
});

builder.mutationField('hostingPhpVersionSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/php-version', 'hosting_php_version_set', { summary: 'Set the PHP version',
      description: 'Switch the PHP-FPM version of the site to one its plan offers (400 names the versions offered).' }),
    type: HostingPhpVersion,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }), php_version: t.arg.string({ required: true, description: 'One of the plan phpVersions, e.g. 8.3.' }) },
    resolve: (_root, args, ctx) => setPhpVersion(ctx, args.id, args.php_version),
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
    ...panel('GET /hosting/:id/visitor-stats', 'hosting_visitor_stats', { summary: 'Get visitor statistics',
      description: 'Visits, unique visitors and page views of the site over 24h, 7d or 30d, with a series and the top pages.' }),
    type: HostingVisitorStats,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }), period: t.arg.string({ required: true, description: '24h, 7d or 30d.', ...rules(PANEL_RULES.period) }) },
    resolve: (_root, args, ctx) => visitorStats(ctx, args.id, args.period),
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
    command: t.string({ required: true, description: 'A single line, at most 1000 characters.', ...rules(PANEL_RULES.cronCommand) }),
  }),
});

builder.queryField('hostingCron', (t) =>
  t.field({
    ...panel('GET /hosting/:id/cron', 'hosting_cron_get', { summary: 'Get the crontab',
      description: 'The crontab header and the cron jobs of the account.' }),
    type: HostingCrontab,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => getCron(ctx, args.id),
  }),
);

builder.mutationField('hostingCronSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/cron', 'hosting_cron_set', { summary: 'Replace the crontab',
      description: 'Replace every cron job of the account with the list given; an empty list clears the crontab. 400 names the first invalid schedule or command; nothing changes then.' }),
    type: HostingCrontab,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }), jobs: t.arg({ type: [HostingCronJobInput], required: true, description: 'At most 50 jobs.', ...rules(PANEL_RULES.cronJobs) }) },
    resolve: (_root, args, ctx) => setCron(ctx, args.id, args.jobs),
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

const HostingProtectedDirList = listType('HostingProtectedDirList', HostingProtectedDir);

builder.queryField('hostingProtectedDirs', (t) =>
  t.field({
    ...panel('GET /hosting/:id/protected-dirs', 'hosting_protected_dirs_list', { summary: 'List protected directories',
      description: 'The directories protected by HTTP basic auth, with their user, whole.' }),
    type: HostingProtectedDirList,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: async (_root, args, ctx) => wholeList(await listProtectedDirs(ctx, args.id)),
  }),
);

builder.mutationField('hostingProtectedDirSet', (t) =>
  t.field({
    ...panel('POST /hosting/:id/protected-dirs', 'hosting_protected_dir_set', { summary: 'Protect a directory',
      description: 'Protect an existing directory with HTTP basic auth, or change its user and password. The password is stored only as a bcrypt hash.', hints: { idempotent: true } }),
    type: HostingProtectedDir,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'An existing directory, e.g. /public_html/admin.' }),
      basic_user: t.arg.string({ required: true, description: '1 to 64 letters, digits, ".", "-" or "_".', ...rules(PANEL_RULES.basicUser) }),
      password: t.arg.string({ required: true, description: '8 to 72 bytes; stored only as a bcrypt hash.' }),
    },
    resolve: (_root, args, ctx) => setProtectedDir(ctx, args.id, args),
  }),
);

builder.mutationField('hostingProtectedDirDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/protected-dirs', 'hosting_protected_dir_delete', { summary: 'Unprotect a directory',
      description: 'Remove the password protection of a directory; its files stay. 404 when it is not protected.' }),
    type: PathDeleted,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }), path: t.arg.string({ required: true, description: 'The protected directory.' }) },
    resolve: (_root, args, ctx) => removeProtectedDir(ctx, args.id, args.path),
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
    ...panel('GET /hosting/:id/waf', 'hosting_waf_status', { summary: 'Get the WAF status',
      description: 'The web application firewall of the site: mode, ruleset and requests blocked in the last 24 hours.' }),
    type: HostingWaf,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => wafStatus(ctx, args.id),
  }),
);

builder.queryField('hostingWafAccess', (t) =>
  t.field({
    ...panel('GET /hosting/:id/waf/access', 'hosting_waf_access_get', { summary: 'Get WAF-log access',
      description: 'Whether temporary access to the WAF log is active, and until when.', notTool: 'temporary WAF-log access opens the log viewer for a person at a browser' }),
    type: HostingWafAccess,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => wafAccess(ctx, args.id),
  }),
);

builder.mutationField('hostingWafAccessRequest', (t) =>
  t.field({
    ...panel('POST /hosting/:id/waf/access', 'hosting_waf_access_request', { summary: 'Request WAF-log access',
      description: 'Open access to the WAF log for 60 minutes from now.', notTool: 'temporary WAF-log access opens the log viewer for a person at a browser' }),
    type: HostingWafAccess,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => requestWafAccess(ctx, args.id),
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
    ...panel('GET /hosting/:id/ssh-terminal/access', 'hosting_ssh_access_get', { summary: 'Get browser-SSH access',
      description: 'Whether browser-SSH access is enabled for the account, and the live session if any.', notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)' }),
    type: HostingSshAccess,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => sshAccess(ctx, args.id),
  }),
);

builder.mutationField('hostingSshAccessEnable', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/access', 'hosting_ssh_access_enable', { summary: 'Enable browser SSH',
      description: 'Enable browser-SSH access for the account; sessions can then be launched.', notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)', hints: { idempotent: true } }),
    type: HostingSshAccess,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => enableSshAccess(ctx, args.id),
  }),
);

builder.mutationField('hostingSshLaunch', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/launch', 'hosting_ssh_launch', { summary: 'Launch a browser-SSH session',
      description: 'Start a browser-SSH session and return a short-lived URL and token to open it. 409 until access is enabled (POST …/ssh-terminal/access).', notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)' }),
    type: HostingSshLaunch,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => launchSsh(ctx, args.id),
  }),
);

builder.mutationField('hostingSshStop', (t) =>
  t.field({
    ...panel('POST /hosting/:id/ssh-terminal/stop', 'hosting_ssh_stop', { summary: 'Stop the browser-SSH session',
      description: 'Stop the live browser-SSH session, if any.', notTool: 'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)', hints: { idempotent: true } }),
    type: HostingSshStop,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => stopSsh(ctx, args.id),
  }),
);
