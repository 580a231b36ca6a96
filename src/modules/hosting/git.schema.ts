import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation } from '../../schema/operation-fields.ts';
import {
  BRANCH_RULES,
  disableGitWebhook,
  enableGitWebhook,
  gitDeploy,
  gitDeployKey,
  gitDisconnect,
  gitPull,
  gitStatus,
  gitWebhook,
  GIT_NOT_CONNECTED,
  GIT_STATES,
} from './git.ts';
import { destroys } from '../../schema/operation.ts';
import { panel, type Out } from './panel-operation.schema.ts';
import { PUSH_HOOK_SCHEME } from './push-hook-scheme.ts';
import { HOSTING_PROVISIONING, SITE_WRITE_REFUSALS } from './service.ts';

// Git deploy: status, deploy key, push webhook, deploy, pull, disconnect.

const HostingGitCommit = builder.objectRef<{ sha: string; message: string }>('HostingGitCommit').implement({
  description: 'A commit of the repository.',
  fields: (t) => ({
    sha: t.exposeString('sha', { description: 'Commit hash, 40 hex digits.' }),
    message: t.exposeString('message', {
      untrusted: true,
      description: 'Commit message, at most 500 characters.',
      ...example('Fix the contact form'),
    }),
  }),
});
const HostingGitStatus = builder.objectRef<Out<typeof gitStatus>>('HostingGitStatus').implement({
  description: 'Git-deploy status: the repository, the deployed commit and the last error.',
  fields: (t) => ({
    connected: t.exposeBoolean('connected', { description: 'True once a repository has been deployed here.' }),
    repoUrl: t.exposeString('repoUrl', {
      restName: 'repo_url',
      nullable: true,
      description: 'SSH address of the repository; null when not connected.',
    }),
    branch: t.exposeString('branch', { nullable: true, description: 'The branch deployed; null when not connected.' }),
    subdir: t.exposeString('subdir', {
      nullable: true,
      description: 'Directory under /public_html the repository is published to ("" for public_html itself).',
    }),
    status: t.exposeString('status', {
      ...values(GIT_STATES, 'deployed'),
      description: 'not_connected, deployed or failed.',
    }),
    commit: t.field({
      type: HostingGitCommit,
      nullable: true,
      description: 'The commit published; null before the first deploy.',
      resolve: (s) => s.commit,
    }),
    lastDeployedAt: t.expose('lastDeployedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a commit was last published; null before the first.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      untrusted: true,
      description: 'Why the last deploy or pull failed; null after a success.',
    }),
    webhookEnabled: t.exposeBoolean('webhookEnabled', { description: 'True when push-to-deploy is on.' }),
  }),
});
const HostingDeployKey = builder.objectRef<Out<typeof gitDeployKey>>('HostingDeployKey').implement({
  description: 'The SSH deploy key of the account: add the public key to the repository as a read-only deploy key.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'Key type.', ...example('ssh-ed25519') }),
    publicKey: t.exposeString('publicKey', { description: 'The public key, one OpenSSH line.' }),
    fingerprint: t.exposeString('fingerprint', { description: 'SHA-256 fingerprint, as ssh-keygen -l prints it.' }),
  }),
});
const HostingGitWebhook = builder.objectRef<Out<typeof gitWebhook>>('HostingGitWebhook').implement({
  description: 'Push-to-deploy: the URL to give the repository host and the secret it signs with.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'True when push-to-deploy is on.' }),
    url: t.exposeString('url', {
      nullable: true,
      description: 'The payload URL for the repository host; null when off.',
      ...example('https://cloud.example.com/hooks/git/hst_01jq8k2m4p6rab3c5d7e9f1g2h'),
    }),
    secret: t.exposeString('secret', {
      nullable: true,
      description: `The push-to-deploy signing secret; null when off. ${PUSH_HOOK_SCHEME}`,
    }),
  }),
});

idOperation({
  root: 'query',
  name: 'hostingGit',
  type: HostingGitStatus,
  idDescription: 'The hosting account id.',
  run: gitStatus,
  operation: panel('GET /hosting/:id/git', {
    toolVerb: 'status',
    summary: 'Get git-deploy status',
    description: 'The git deploy of the site: repository, branch, last commit and deploy time, or not connected.',
  }),
});

idOperation({
  root: 'query',
  name: 'hostingGitDeployKey',
  type: HostingDeployKey,
  idDescription: 'The hosting account id.',
  run: gitDeployKey,
  operation: panel('GET /hosting/:id/git/deploy-key', {
    refuses: [HOSTING_PROVISIONING],
    summary: 'Get the deploy key',
    description:
      'The SSH deploy key (public key and fingerprint) to add, read-only, to the repository before deploying.',
  }),
});

idOperation({
  root: 'query',
  name: 'hostingGitWebhook',
  type: HostingGitWebhook,
  idDescription: 'The hosting account id.',
  run: gitWebhook,
  operation: panel('GET /hosting/:id/git/webhook', {
    toolVerb: 'get',
    summary: 'Get the push-to-deploy hook',
    description: 'The push-to-deploy webhook URL and its secret, and whether it is enabled.',
    notTool: 'hands out the push-to-deploy signing secret',
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingGitWebhookEnable',
  type: HostingGitWebhook,
  idDescription: 'The hosting account id.',
  run: enableGitWebhook,
  operation: panel('POST /hosting/:id/git/webhook', {
    refuses: [HOSTING_PROVISIONING, GIT_NOT_CONNECTED],
    summary: 'Enable push-to-deploy',
    description: `Enable push-to-deploy: a signed POST to the returned URL pulls and publishes the branch. Returns the URL and the signing secret (enabling again keeps the secret). 409 when git deploy is not connected. ${PUSH_HOOK_SCHEME} A replayed delivery id answers 409 DELIVERY_REPLAYED, a stale time 401 SIGNATURE_EXPIRED.`,
    notTool: 'hands out the push-to-deploy signing secret',
    hints: { idempotent: true },
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingGitWebhookDisable',
  type: HostingGitWebhook,
  idDescription: 'The hosting account id.',
  run: disableGitWebhook,
  operation: panel('DELETE /hosting/:id/git/webhook', {
    consequence: destroys(
      'Disable push-to-deploy on hosting account {id}: its secret is discarded and pushes are refused.',
    ),
    refuses: [HOSTING_PROVISIONING],
    summary: 'Disable push-to-deploy',
    description: 'Disable push-to-deploy; the secret is discarded and pushes are refused.',
  }),
});

builder.mutationField('hostingGitDeploy', (t) =>
  t.field({
    ...panel('POST /hosting/:id/git/deploy', {
      consequence: destroys('Deploy into the site of hosting account {id}: the published files there are replaced.'),
      refuses: [...SITE_WRITE_REFUSALS],
      summary: 'Deploy a repository',
      description:
        'Clone a branch of a repository over SSH with the deploy key and publish it into /public_html (or a directory under it). A failed clone is recorded (status failed, lastError) and answered 400.',
    }),
    type: HostingGitStatus,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      repoUrl: t.arg.string({
        restName: 'repo_url',
        required: true,
        description: 'SSH address: git@host:owner/repo.git or ssh://[user@]host[:port]/path.',
      }),
      branch: t.arg.string({
        required: false,
        description: 'Branch to deploy (default main).',
        ...inputSchema(BRANCH_RULES),
      }),
      subdir: t.arg.string({
        required: false,
        description: 'Directory under /public_html to publish into (default: public_html itself).',
      }),
    },
    resolve: (_root, args, ctx) =>
      gitDeploy(ctx, args.id, { repoUrl: args.repoUrl, branch: args.branch, subdir: args.subdir }),
  }),
);

idOperation({
  root: 'mutation',
  name: 'hostingGitPull',
  type: HostingGitStatus,
  idDescription: 'The hosting account id.',
  run: gitPull,
  operation: panel('POST /hosting/:id/git/pull', {
    consequence: destroys(
      'Pull and publish on hosting account {id}: the published files are replaced by the latest commit.',
    ),
    refuses: [...SITE_WRITE_REFUSALS, GIT_NOT_CONNECTED],
    summary: 'Pull and publish',
    description:
      'Pull the latest commit of the deployed branch and publish it. A failure is recorded (status failed, lastError) and answered 400; 409 when git deploy is not connected.',
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingGitDisconnect',
  type: HostingGitStatus,
  idDescription: 'The hosting account id.',
  run: gitDisconnect,
  operation: panel('DELETE /hosting/:id/git', {
    consequence: destroys(
      'Disconnect git deploy of hosting account {id}: its repository settings and deploy key are discarded.',
    ),
    refuses: [HOSTING_PROVISIONING],
    summary: 'Disconnect git deploy',
    description: 'Disconnect git deploy; the published files stay.',
  }),
});
