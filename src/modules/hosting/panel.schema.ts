import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation } from '../../schema/operation-fields.ts';
import {
  getCron,
  hostingStats,
  LOG_LINES_DEFAULT,
  PANEL_RULES,
  setCron,
  setPhpVersion,
  tailLog,
  visitorStats,
} from './panel.ts';
import { retryCertificate } from './custom-domains.ts';
import { HOSTING_PLAN_RETIRED, HOSTING_PROVISIONING } from './service.ts';
import { HostingCertificate } from './accounts.schema.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';

// The control panel: stats, logs, certificate, PHP, cron (protected directories, WAF and browser
// SSH: security.schema.ts).

const Usage = builder.objectRef<{ used: number; quota: number }>('HostingUsage').implement({
  description: 'A count against its plan quota.',
  fields: (t) => ({
    used: t.exposeInt('used', { description: 'In use now.' }),
    quota: t.exposeInt('quota', { description: 'What the plan allows.' }),
  }),
});
const ByteUsage = builder
  .objectRef<{ usedBytes: number; quotaBytes: number; periodStart?: Date }>('HostingByteUsage')
  .implement({
    description: 'Bytes against their plan quota.',
    fields: (t) => ({
      usedBytes: t.exposeFloat('usedBytes', { description: 'Bytes used.' }),
      quotaBytes: t.exposeFloat('quotaBytes', { description: 'Bytes the plan allows.' }),
      periodStart: t.expose('periodStart', {
        type: 'DateTime',
        nullable: true,
        description: 'Start of the counting period (bandwidth: the calendar month, UTC).',
      }),
    }),
  });

const HostingStats = builder.objectRef<Out<typeof hostingStats>>('HostingStats').implement({
  description: 'Disk usage, inode count, bandwidth and mailbox count of a hosting account, with the plan quotas.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The hosting account.' }),
    sampledAt: t.expose('sampledAt', { type: 'DateTime', description: 'When the figures were taken.' }),
    disk: t.field({
      type: ByteUsage,
      description: 'Disk space the quota counts: the files, the databases, the backup archives and the git clone.',
      resolve: (s) => s.disk,
    }),
    inodes: t.field({
      type: Usage,
      description: 'Files and directories (inodes), counted over the same.',
      resolve: (s) => s.inodes,
    }),
    bandwidth: t.field({
      type: ByteUsage,
      description: 'Traffic served this calendar month (UTC).',
      resolve: (s) => s.bandwidth,
    }),
    mailboxes: t.field({ type: Usage, description: 'Mailboxes.', resolve: (s) => s.mailboxes }),
    databases: t.field({ type: Usage, description: 'Extra MySQL databases.', resolve: (s) => s.databases }),
  }),
});

idOperation({
  root: 'query',
  name: 'hostingStats',
  type: HostingStats,
  idDescription: 'The hosting account id.',
  run: hostingStats,
  operation: panel('GET /hosting/:id/stats', {
    refuses: [HOSTING_PROVISIONING, HOSTING_PLAN_RETIRED],
    summary: 'Get hosting usage',
    description:
      'Disk, inode, bandwidth (this calendar month, UTC), mailbox and database usage of a hosting account, with the plan quotas.',
  }),
});

const HostingLog = builder.objectRef<Out<typeof tailLog>>('HostingLog').implement({
  description: 'The tail of a web-server log, oldest line first.',
  fields: (t) => ({
    kind: t.exposeString('kind', { ...values(PANEL_RULES.logKind.options), description: 'access or error.' }),
    lines: t.exposeStringList('lines', {
      untrusted: true,
      description: 'The last lines, oldest first.',
    }),
  }),
});

builder.queryField('hostingLogs', (t) =>
  t.field({
    ...panel('GET /hosting/:id/logs', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'Tail a site log',
      description: 'The last lines of the access or error log of the site, oldest first.',
    }),
    type: HostingLog,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      kind: t.arg.string({ required: true, description: 'access or error.', ...inputSchema(PANEL_RULES.logKind) }),
      lines: t.arg.int({
        required: false,
        description: `Lines from the end (default ${LOG_LINES_DEFAULT}).`,
        ...inputSchema(PANEL_RULES.logLines),
      }),
    },
    resolve: (_root, args, ctx) => tailLog(ctx, args.id, args.kind as 'access' | 'error', args.lines),
  }),
);

idOperation({
  root: 'mutation',
  name: 'hostingCertRetry',
  type: HostingCertificate,
  idDescription: 'The hosting account id.',
  run: retryCertificate,
  operation: panel('POST /hosting/:id/cert/retry', {
    refuses: [HOSTING_PROVISIONING],
    summary: 'Retry the certificate',
    description:
      'Retry certificate issuance now: the DNS of each name is checked again. Answers the certificate state.',
    hints: { idempotent: true },
  }),
});

const HostingPhpVersion = builder.objectRef<Out<typeof setPhpVersion>>('HostingPhpVersion').implement({
  description: 'The PHP-FPM version of the site and the versions its plan offers.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The hosting account.' }),
    phpVersion: t.exposeString('phpVersion', {
      restName: 'php_version',
      description: 'PHP-FPM version the site runs now.',
    }),
    availableVersions: t.exposeStringList('availableVersions', { description: 'Versions the plan offers.' }),
  }),
});

builder.mutationField('hostingPhpVersionSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/php-version', {
      refuses: [HOSTING_PROVISIONING, HOSTING_PLAN_RETIRED],
      summary: 'Set the PHP version',
      description: 'Switch the PHP-FPM version of the site to one its plan offers (400 names the versions offered).',
    }),
    type: HostingPhpVersion,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      phpVersion: t.arg.string({
        restName: 'php_version',
        required: true,
        description: 'One of the plan phpVersions, e.g. 8.3.',
      }),
    },
    resolve: (_root, args, ctx) => setPhpVersion(ctx, args.id, args.phpVersion),
  }),
);

const VisitorPoint = builder.objectRef<Out<typeof visitorStats>['series'][number]>('HostingVisitorPoint').implement({
  description: 'Visitor statistics of one hour (24h) or one day (7d, 30d).',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime', description: 'Start of the hour or day.' }),
    visits: t.exposeInt('visits', { description: 'Visits.' }),
    uniqueVisitors: t.exposeInt('uniqueVisitors', { description: 'Distinct visitors.' }),
    pageViews: t.exposeInt('pageViews', { description: 'Pages viewed.' }),
  }),
});
const TopPage = builder.objectRef<{ path: string; views: number }>('HostingTopPage').implement({
  description: 'A page and its views over the period.',
  fields: (t) => ({
    path: t.exposeString('path', {
      untrusted: true,
      description: 'URL path of the page, as visitors asked for it.',
      ...example('/pricing'),
    }),
    views: t.exposeInt('views', { description: 'Page views.' }),
  }),
});
const HostingVisitorStats = builder.objectRef<Out<typeof visitorStats>>('HostingVisitorStats').implement({
  description: 'Visitor statistics over a period: totals, top pages and a series (hourly for 24h, daily otherwise).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The hosting account.' }),
    period: t.exposeString('period', { ...values(PANEL_RULES.period.options), description: '24h, 7d or 30d.' }),
    from: t.expose('from', { type: 'DateTime', description: 'Start of the period.' }),
    to: t.expose('to', { type: 'DateTime', description: 'End of the period.' }),
    visits: t.exposeInt('visits', { description: 'Visits over the period.' }),
    uniqueVisitors: t.exposeInt('uniqueVisitors', { description: 'Distinct visitors over the period.' }),
    pageViews: t.exposeInt('pageViews', { description: 'Page views over the period.' }),
    bandwidthBytes: t.exposeFloat('bandwidthBytes', { description: 'Bytes served over the period.' }),
    topPages: t.field({
      type: [TopPage],
      description: 'The most viewed pages, most first.',
      resolve: (s) => s.topPages,
    }),
    series: t.field({
      type: [VisitorPoint],
      description: 'The period hour by hour (24h) or day by day, oldest first.',
      resolve: (s) => s.series,
    }),
  }),
});

builder.queryField('hostingVisitorStats', (t) =>
  t.field({
    ...panel('GET /hosting/:id/visitor-stats', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'Get visitor statistics',
      description:
        'Visits, unique visitors and page views of the site over 24h, 7d or 30d, with a series and the top pages.',
    }),
    type: HostingVisitorStats,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      period: t.arg.string({ required: true, description: '24h, 7d or 30d.', ...inputSchema(PANEL_RULES.period) }),
    },
    resolve: (_root, args, ctx) => visitorStats(ctx, args.id, args.period),
  }),
);

// ------------------------------------------------------------------ cron

const HostingCronJob = builder.objectRef<{ schedule: string; command: string }>('HostingCronJob').implement({
  description: 'One crontab line.',
  fields: (t) => ({
    schedule: t.exposeString('schedule', { description: 'Five cron fields, or a macro such as @daily (UTC).' }),
    command: t.exposeString('command', { description: 'The command, run as the account user.' }),
  }),
});
const HostingCrontab = builder.objectRef<Out<typeof getCron>>('HostingCrontab').implement({
  description: 'The crontab: its fixed header and the jobs, in order.',
  fields: (t) => ({
    header: t.exposeString('header', {
      description: 'Lines the panel writes above the jobs (SHELL, PATH, MAILTO, CRON_TZ); not editable.',
    }),
    jobs: t.field({ type: [HostingCronJob], description: 'The jobs, in crontab order.', resolve: (c) => c.jobs }),
  }),
});
const HostingCronJobInput = builder.inputType('HostingCronJobInput', {
  description: 'One crontab line.',
  fields: (t) => ({
    schedule: t.string({
      required: true,
      description:
        'Five cron fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly.',
    }),
    command: t.string({
      required: true,
      description: 'A single line, at most 1000 characters.',
      ...inputSchema(PANEL_RULES.cronCommand),
    }),
  }),
});

idOperation({
  root: 'query',
  name: 'hostingCron',
  type: HostingCrontab,
  idDescription: 'The hosting account id.',
  run: getCron,
  operation: panel('GET /hosting/:id/cron', {
    toolVerb: 'get',
    refuses: [HOSTING_PROVISIONING],
    summary: 'Get the crontab',
    description: 'The crontab header and the cron jobs of the account.',
  }),
});

builder.mutationField('hostingCronSet', (t) =>
  t.field({
    ...panel('PUT /hosting/:id/cron', {
      consequence: destroys('Replace every cron job of hosting account {id}: the jobs there now are lost.'),
      refuses: [HOSTING_PROVISIONING],
      summary: 'Replace the crontab',
      description:
        'Replace every cron job of the account with the list given; an empty list clears the crontab. 400 names the first invalid schedule or command; nothing changes then.',
    }),
    type: HostingCrontab,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      jobs: t.arg({
        type: [HostingCronJobInput],
        required: true,
        description: 'At most 50 jobs.',
        ...inputSchema(PANEL_RULES.cronJobs),
      }),
    },
    resolve: (_root, args, ctx) => setCron(ctx, args.id, args.jobs),
  }),
);
