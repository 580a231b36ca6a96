import { builder } from '../../schema/builder.ts';
import { rules } from '../../schema/input-rules.ts';
import { BRANCH_RULES, disableGitWebhook, enableGitWebhook, gitDeploy, gitDeployKey, gitDisconnect, gitPull, gitStatus, gitWebhook } from './git.ts';
import { panel, type Out } from './panel-operation.ts';

// Git deploy: status, deploy key, push webhook, deploy, pull, disconnect.

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
    ...panel('GET /hosting/:id/git', 'hosting_git_status', { summary: 'Get git-deploy status',
      description: 'The git deploy of the site: repository, branch, last commit and deploy time, or not connected.' }),
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => gitStatus(ctx, args.id),
  }),
);

builder.queryField('hostingGitDeployKey', (t) =>
  t.field({
    ...panel('GET /hosting/:id/git/deploy-key', 'hosting_git_deploy_key', { summary: 'Get the deploy key',
      description: 'The SSH deploy key (public key and fingerprint) to add, read-only, to the repository before deploying.' }),
    type: HostingDeployKey,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => gitDeployKey(ctx, args.id),
  }),
);

builder.queryField('hostingGitWebhook', (t) =>
  t.field({
    ...panel('GET /hosting/:id/git/webhook', 'hosting_git_webhook_get', { summary: 'Get the push-to-deploy hook',
      description: 'The push-to-deploy webhook URL and its secret, and whether it is enabled.', notTool: 'hands out the push-to-deploy signing secret' }),
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => gitWebhook(ctx, args.id),
  }),
);

builder.mutationField('hostingGitWebhookEnable', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/webhook', 'hosting_git_webhook_enable', { summary: 'Enable push-to-deploy',
      description: 'Enable push-to-deploy: a signed push to the returned URL pulls and publishes the branch. Returns the URL and the secret for the repository\'s webhook settings (enabling again keeps the secret). 409 when git deploy is not connected.', notTool: 'hands out the push-to-deploy signing secret', hints: { idempotent: true } }),
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => enableGitWebhook(ctx, args.id),
  }),
);

builder.mutationField('hostingGitWebhookDisable', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/git/webhook', 'hosting_git_webhook_disable', { summary: 'Disable push-to-deploy',
      description: 'Disable push-to-deploy; the secret is discarded and pushes are refused.' }),
    type: HostingGitWebhook,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => disableGitWebhook(ctx, args.id),
  }),
);

builder.mutationField('hostingGitDeploy', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/deploy', 'hosting_git_deploy', { summary: 'Deploy a repository',
      description: 'Clone a branch of a repository over SSH with the deploy key and publish it into /public_html (or a directory under it). A failed clone is recorded (status failed, lastError) and answered 400.', hints: { destructive: true } }),
    type: HostingGitStatus,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      repo_url: t.arg.string({ required: true, description: 'SSH address: git@host:owner/repo.git or ssh://[user@]host[:port]/path.' }),
      branch: t.arg.string({ required: false, description: 'Branch to deploy (default main).', ...rules(BRANCH_RULES) }),
      subdir: t.arg.string({ required: false, description: 'Directory under /public_html to publish into (default: public_html itself).' }),
    },
    resolve: (_root, args, ctx) => gitDeploy(ctx, args.id, args),
  }),
);

builder.mutationField('hostingGitPull', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/pull', 'hosting_git_pull', { summary: 'Pull and publish',
      description: 'Pull the latest commit of the deployed branch and publish it. A failure is recorded (status failed, lastError) and answered 400; 409 when git deploy is not connected.', hints: { destructive: true } }),
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => gitPull(ctx, args.id),
  }),
);

builder.mutationField('hostingGitDisconnect', (t) =>
  t.field({
    ...panel('DELETE /hosting/:id/git', 'hosting_git_disconnect', { summary: 'Disconnect git deploy',
      description: 'Disconnect git deploy; the published files stay.' }),
    type: HostingGitStatus,
    args: { id: t.arg.id({ required: true, description: 'The hosting account id.' }) },
    resolve: (_root, args, ctx) => gitDisconnect(ctx, args.id),
  }),
);
