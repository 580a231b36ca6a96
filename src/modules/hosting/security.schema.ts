import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { example } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, wholeListQuery } from '../../schema/operation-fields.ts';
import { listConnection } from '../../schema/pagination.ts';
import {
  enableSshAccess,
  launchSsh,
  listProtectedDirs,
  PANEL_RULES,
  removeProtectedDir,
  requestWafAccess,
  setProtectedDir,
  sshAccess,
  stopSsh,
  wafAccess,
  wafStatus,
  SSH_ACCESS_OFF,
  liveSshSessionsByIds,
} from './panel.ts';
import { HOSTING_PROVISIONING } from './service.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';

// The control panel's guards: protected directories, the web application firewall, browser SSH.

// ------------------------------------------------------------------ protected directories

const HostingProtectedDir = builder.objectRef<Out<typeof setProtectedDir>>('HostingProtectedDir').implement({
  description: 'A password-protected directory (the password is never returned).',
  fields: (t) => ({
    path: t.exposeString('path', {
      description: 'The directory, absolute inside the account.',
      ...example('/public_html/admin'),
    }),
    basicUser: t.exposeString('basicUser', { restName: 'basic_user', description: 'The HTTP basic-auth user name.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was protected.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When its user or password last changed.' }),
  }),
});
const PathDeleted = builder.objectRef<{ path: string; deleted: boolean }>('HostingPathDeleted').implement({
  description: 'A directory whose protection was removed.',
  fields: (t) => ({
    path: t.exposeString('path', {
      description: 'The directory, no longer protected.',
      ...example('/public_html/admin'),
    }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
  }),
});

const HostingProtectedDirConnection = listConnection(HostingProtectedDir);

wholeListQuery<{ id: string }>({
  name: 'hostingProtectedDirs',
  type: HostingProtectedDirConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The hosting account id.' }) }),
  list: (ctx, args) => listProtectedDirs(ctx, args.id),
  operation: panel('GET /hosting/:id/protected-dirs', {
    toolVerb: 'list',
    summary: 'List protected directories',
    description: 'The directories protected by HTTP basic auth, with their user, whole.',
  }),
});

builder.mutationField('hostingProtectedDirSet', (t) =>
  t.field({
    ...panel('POST /hosting/:id/protected-dirs', {
      refuses: [HOSTING_PROVISIONING],
      summary: 'Protect a directory',
      description:
        'Protect an existing directory with HTTP basic auth, or change its user and password. The password is stored only as a bcrypt hash.',
      hints: { idempotent: true },
    }),
    type: HostingProtectedDir,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'An existing directory, e.g. /public_html/admin.' }),
      basicUser: t.arg.string({
        restName: 'basic_user',
        required: true,
        description: '1 to 64 letters, digits, ".", "-" or "_".',
        ...inputSchema(PANEL_RULES.basicUser),
      }),
      password: t.arg.string({ required: true, description: '8 to 72 bytes; stored only as a bcrypt hash.' }),
    },
    resolve: (_root, args, ctx) =>
      setProtectedDir(ctx, args.id, { path: args.path, basicUser: args.basicUser, password: args.password }),
  }),
);

builder.mutationField('hostingProtectedDirDelete', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/protected-dirs', {
      consequence: destroys(
        'Remove the password protection of {path} on hosting account {id}: its users are discarded and the directory is public.',
      ),
      refuses: [HOSTING_PROVISIONING],
      summary: 'Unprotect a directory',
      description: 'Remove the password protection of a directory; its files stay. 404 when it is not protected.',
    }),
    type: PathDeleted,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      path: t.arg.string({ required: true, description: 'The protected directory.' }),
    },
    resolve: (_root, args, ctx) => removeProtectedDir(ctx, args.id, args.path),
  }),
);

// ------------------------------------------------------------------ WAF

const HostingWafAccess = builder.objectRef<Out<typeof wafAccess>>('HostingWafAccess').implement({
  description: 'Temporary access to the web application firewall log.',
  fields: (t) => ({
    active: t.exposeBoolean('active', { description: 'True while the WAF log can be viewed.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When access ends; null when not active.',
    }),
  }),
});
const HostingWaf = builder.objectRef<Out<typeof wafStatus>>('HostingWaf').implement({
  description: 'Web application firewall status.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The hosting account.' }),
    enabled: t.exposeBoolean('enabled', { description: 'True when the firewall filters the site (always, today).' }),
    mode: t.exposeString('mode', { description: 'blocking: matching requests are refused.', ...example('blocking') }),
    ruleset: t.exposeString('ruleset', { description: 'The rule set in force.', ...example('OWASP CRS 4') }),
    blockedRequests24h: t.exposeInt('blockedRequests24h', { description: 'Requests blocked in the last 24 hours.' }),
    logAccess: t.field({
      type: HostingWafAccess,
      description: 'Temporary access to the WAF log.',
      resolve: (w) => w.logAccess,
    }),
  }),
});

idOperation({
  root: 'query',
  name: 'hostingWaf',
  type: HostingWaf,
  idDescription: 'The hosting account id.',
  run: wafStatus,
  operation: panel('GET /hosting/:id/waf', {
    toolVerb: 'status',
    refuses: [HOSTING_PROVISIONING],
    summary: 'Get the WAF status',
    description: 'The web application firewall of the site: mode, ruleset and requests blocked in the last 24 hours.',
  }),
});

idOperation({
  root: 'query',
  name: 'hostingWafAccess',
  type: HostingWafAccess,
  idDescription: 'The hosting account id.',
  run: wafAccess,
  operation: panel('GET /hosting/:id/waf/access', {
    toolVerb: 'get',
    refuses: [HOSTING_PROVISIONING],
    summary: 'Get WAF-log access',
    description: 'Whether temporary access to the WAF log is active, and until when.',
    notTool: 'temporary WAF-log access opens the log viewer for a person at a browser',
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingWafAccessRequest',
  type: HostingWafAccess,
  idDescription: 'The hosting account id.',
  run: requestWafAccess,
  operation: panel('POST /hosting/:id/waf/access', {
    refuses: [HOSTING_PROVISIONING],
    summary: 'Request WAF-log access',
    description: 'Open access to the WAF log for 60 minutes from now.',
    notTool: 'temporary WAF-log access opens the log viewer for a person at a browser',
  }),
});

// ------------------------------------------------------------------ browser SSH

const HostingSshSession = builder.node(builder.objectRef<{ id: string; expiresAt: Date }>('HostingSshSession'), {
  ...loadedNode('HostingSshSession', {
    prefix: 'hss',
    scope: 'hosting:manage',
    id: { description: 'The session id (hss_…).' },
    load: (ctx, ids) => liveSshSessionsByIds(ctx, ids),
  }),
  description: 'A live browser-SSH session.',
  fields: (t) => ({
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When it ends at the latest.' }),
  }),
});
const HostingSshAccess = builder.objectRef<Out<typeof sshAccess>>('HostingSshAccess').implement({
  description: 'Whether browser-SSH access is enabled, and the live session if any.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'True once browser SSH is enabled.' }),
    enabledAt: t.expose('enabledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was enabled; null when not.',
    }),
    session: t.field({
      type: HostingSshSession,
      nullable: true,
      description: 'The live session; null when none.',
      resolve: (a) => a.session,
    }),
  }),
});
const HostingSshLaunch = builder.objectRef<Out<typeof launchSsh>>('HostingSshLaunch').implement({
  description: 'A browser-SSH session: open the URL (or pass the token) before it expires.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session id (hss_…).' }),
    url: t.exposeString('url', {
      description: 'Opens the terminal in a browser; it carries the token.',
      ...example(
        'https://cloud.example.com/ssh-terminal/hss_01jq8k2m4p6rab3c5d7e9f1g2h#token=sshs_Xk3v9QmB2rT7yL0pW5nZ8cD1fG4hJ6sA',
      ),
    }),
    token: t.exposeString('token', { description: 'Shown once; stored only as a hash.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When the session ends (15 minutes after launch).',
    }),
  }),
});
const HostingSshStop = builder.objectRef<Out<typeof stopSsh>>('HostingSshStop').implement({
  description: 'The browser-SSH session stopped, if one was live.',
  fields: (t) => ({
    stopped: t.exposeBoolean('stopped', { description: 'False when no session was live.' }),
    sessionId: t.exposeString('sessionId', {
      nullable: true,
      description: 'The session stopped; null when none was live.',
    }),
  }),
});

/** Why the browser-SSH operations are not MCP tools. */
const BROWSER_SSH_NOT_A_TOOL =
  'the browser-SSH terminal is for a person at a browser (a shell session, not an API call)';

idOperation({
  root: 'query',
  name: 'hostingSshAccess',
  type: HostingSshAccess,
  idDescription: 'The hosting account id.',
  run: sshAccess,
  operation: panel('GET /hosting/:id/ssh-terminal/access', {
    toolVerb: 'get',
    refuses: [HOSTING_PROVISIONING],
    summary: 'Get browser-SSH access',
    description: 'Whether browser-SSH access is enabled for the account, and the live session if any.',
    notTool: BROWSER_SSH_NOT_A_TOOL,
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingSshAccessEnable',
  type: HostingSshAccess,
  idDescription: 'The hosting account id.',
  run: enableSshAccess,
  operation: panel('POST /hosting/:id/ssh-terminal/access', {
    refuses: [HOSTING_PROVISIONING],
    summary: 'Enable browser SSH',
    description: 'Enable browser-SSH access for the account; sessions can then be launched.',
    notTool: BROWSER_SSH_NOT_A_TOOL,
    hints: { idempotent: true },
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingSshLaunch',
  type: HostingSshLaunch,
  idDescription: 'The hosting account id.',
  run: launchSsh,
  operation: panel('POST /hosting/:id/ssh-terminal/launch', {
    fires: [],
    refuses: [HOSTING_PROVISIONING, SSH_ACCESS_OFF],
    summary: 'Launch a browser-SSH session',
    description:
      'Start a browser-SSH session and return a short-lived URL and token to open it. 409 until access is enabled (POST …/ssh-terminal/access).',
    notTool: BROWSER_SSH_NOT_A_TOOL,
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingSshStop',
  type: HostingSshStop,
  idDescription: 'The hosting account id.',
  run: stopSsh,
  operation: panel('POST /hosting/:id/ssh-terminal/stop', {
    fires: [],
    refuses: [HOSTING_PROVISIONING],
    summary: 'Stop the browser-SSH session',
    description: 'Stop the live browser-SSH session, if any.',
    notTool: BROWSER_SSH_NOT_A_TOOL,
    hints: { idempotent: true },
  }),
});
