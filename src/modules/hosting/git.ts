import { randomBytes } from 'node:crypto';
import { badRequest, refusal } from '../../errors.ts';
import { waitOutside } from '../../core/outside-waits.ts';
import { pathSegments, type PathRefused } from '../../provider/hosting/sandbox.ts';
import { z } from 'zod';
import { decryptSecret, encryptSecret } from '../webhooks/secrets.ts';
import { activeHosting, asApiError, driver, getHosting, siteQuota, type HostingContext } from './service.ts';
import { panelChanged } from './panel-events.ts';

/**
 * Git deploy: one repository per hosting account, cloned with the real git binary through
 * the account's deploy key and published into /public_html/<subdir>.
 */
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9][A-Za-z0-9.-]*:[A-Za-z0-9._~/-]+$/;
/** The branch argument's declared rule (git.schema.ts spreads it). */
export const BRANCH_RULES = z.string().regex(
  // biome-ignore lint/complexity/noUselessEscapeInRegex: the source is published as the OpenAPI pattern as written
  /^(?!-)(?!\/)(?!.*\/\/)(?!.*\.\.)(?!.*@\{)(?!.*\.lock$)(?!.*\/$)[A-Za-z0-9._\/-]{1,200}$/,
  'a git branch name (letters, digits, ".", "_", "-", "/"; not starting with "-")',
);

type Row = NonNullable<Awaited<ReturnType<HostingContext['db']['hostingGitDeploy']['findFirst']>>>;

/** repo_url: an SSH address (`git@host:owner/repo.git` or `ssh://[user@]host[:port]/path`); local paths only with HOSTING_ALLOW_LOCAL_GIT=1. */
export function checkRepoUrl(input: unknown, allowLocal: boolean): string {
  const bad = () =>
    badRequest(
      'repo_url must be an SSH repository address such as git@github.com:owner/repo.git or ssh://git@example.com/owner/repo.git.',
      'repo_url',
    );
  if (typeof input !== 'string') throw bad();
  const url = input.trim();
  // eslint-disable-next-line no-control-regex
  if (!url || url.length > 500 || url.startsWith('-') || /[\s\x00-\x1f\x7f]/.test(url)) throw bad();
  if (SCP_LIKE.test(url)) return url;
  if (url.startsWith('ssh://')) {
    try {
      const u = new URL(url);
      if (u.hostname && !u.hostname.startsWith('-') && u.pathname.length > 1 && !u.search && !u.hash) return url;
    } catch {
      /* refused below */
    }
    throw bad();
  }
  if (allowLocal && (url.startsWith('file:///') || (url.startsWith('/') && !url.split('/').includes('..')))) return url;
  throw bad();
}

function checkSubdir(input: unknown): string {
  if (input === undefined || input === null || input === '') return '';
  try {
    return pathSegments(input, 'subdir').join('/');
  } catch (err) {
    throw badRequest((err as PathRefused).message, 'subdir');
  }
}

function webhookUrl(ctx: HostingContext, id: string): string {
  return `${ctx.app.config.publicBaseUrl}/hooks/git/${id}`;
}

function statusView(row: Row | null) {
  return {
    connected: row !== null,
    repoUrl: row?.repoUrl ?? null,
    branch: row?.branch ?? null,
    subdir: row?.subdir ?? null,
    status: row?.status ?? 'not_connected',
    commit: row?.commitSha ? { sha: row.commitSha, message: row.commitMessage ?? '' } : null,
    lastDeployedAt: row?.lastDeployedAt ?? null,
    lastError: row?.lastError ?? null,
    webhookEnabled: row?.webhookEnabled ?? false,
  };
}

async function findDeploy(ctx: HostingContext, id: string) {
  return ctx.db.hostingGitDeploy.findFirst({ where: { hostingId: id } });
}

export async function gitStatus(ctx: HostingContext, id: string) {
  await getHosting(ctx.db, id);
  return statusView(await findDeploy(ctx, id));
}

export async function gitDeployKey(ctx: HostingContext, id: string) {
  await activeHosting(ctx.db, id);
  return driver(ctx.app.hosting.deployKey(id));
}

/** Clones repo_url's branch and publishes it; a failure changes nothing (the previous deploy stays). */
export async function gitDeploy(
  ctx: HostingContext,
  id: string,
  input: { repoUrl: unknown; branch?: string | null; subdir?: unknown },
) {
  const repoUrl = checkRepoUrl(input.repoUrl, ctx.app.config.hostingAllowLocalGit);
  const branch = input.branch ?? 'main';
  const subdir = checkSubdir(input.subdir);
  const row = await activeHosting(ctx.db, id);
  const quota = await siteQuota(ctx.db, row);
  // The clone waits on the repository's server: the request's slot serves others meanwhile.
  const commit = await waitOutside(() => driver(ctx.app.hosting.gitDeploy(id, { repoUrl, branch, subdir, quota })));
  const now = ctx.app.clock.now();
  const data = {
    repoUrl,
    branch,
    subdir,
    status: 'deployed',
    commitSha: commit.sha,
    commitMessage: commit.message.slice(0, 500),
    lastDeployedAt: now,
    lastError: null,
  };
  const saved = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, row, 'git', 'deployed', now);
    return tx.hostingGitDeploy.upsert({
      where: { hostingId: id },
      create: { hostingId: id, accountId: row.accountId, ...data, createdAt: now, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
  });
  return statusView(saved);
}

export const GIT_STATES = ['not_connected', 'deployed', 'failed'] as const;
export const GIT_NOT_CONNECTED = refusal(409, 'Git deploy is not connected: deploy a repository first');

/** Fetches the branch and publishes its latest commit. A failure is recorded (status failed, lastError) and answered 400. */
export async function gitPull(ctx: HostingContext, id: string) {
  const hosting = await activeHosting(ctx.db, id);
  const row = await findDeploy(ctx, id);
  if (!row)
    throw GIT_NOT_CONNECTED.error(
      'Git deploy is not connected; deploy a repository first (POST /hosting/:id/git/deploy).',
    );
  const now = ctx.app.clock.now();
  const quota = await siteQuota(ctx.db, hosting);
  try {
    const commit = await waitOutside(() =>
      ctx.app.hosting.gitPull(id, { branch: row.branch, subdir: row.subdir, quota }),
    );
    const saved = await ctx.db.$transaction(async (tx) => {
      await panelChanged(tx, hosting, 'git', 'pulled', now);
      return tx.hostingGitDeploy.update({
        where: { hostingId: id },
        data: {
          status: 'deployed',
          commitSha: commit.sha,
          commitMessage: commit.message.slice(0, 500),
          lastDeployedAt: now,
          lastError: null,
          updatedAt: now,
        },
      });
    });
    return statusView(saved);
  } catch (err) {
    const api = asApiError(err);
    if (api !== err)
      await ctx.db.hostingGitDeploy.update({
        where: { hostingId: id },
        data: { status: 'failed', lastError: (err as Error).message.slice(0, 1000), updatedAt: now },
      });
    throw api;
  }
}

/** Forgets the repository (the published files stay in the site). */
export async function gitDisconnect(ctx: HostingContext, id: string) {
  const hosting = await activeHosting(ctx.db, id);
  await ctx.app.hosting.gitDisconnect(id);
  await ctx.db.$transaction(async (tx) => {
    const { count } = await tx.hostingGitDeploy.deleteMany({ where: { hostingId: id } });
    if (count) await panelChanged(tx, hosting, 'git', 'disconnected', ctx.app.clock.now());
  });
  return statusView(null);
}

function webhookView(ctx: HostingContext, id: string, row: Row | null) {
  if (!row?.webhookEnabled || !row.webhookSecretEnc) return { enabled: false, url: null, secret: null };
  return {
    enabled: true,
    url: webhookUrl(ctx, id),
    secret: decryptSecret(ctx.app.webhookSecretKey, `git:${id}`, row.webhookSecretEnc),
  };
}

export async function gitWebhook(ctx: HostingContext, id: string) {
  await getHosting(ctx.db, id);
  return webhookView(ctx, id, await findDeploy(ctx, id));
}

/** Enables push-to-deploy with a fresh secret (kept encrypted at rest). Enabling again keeps the secret. */
export async function enableGitWebhook(ctx: HostingContext, id: string) {
  const hosting = await activeHosting(ctx.db, id);
  const row = await findDeploy(ctx, id);
  if (!row)
    throw GIT_NOT_CONNECTED.error(
      'Git deploy is not connected; deploy a repository first (POST /hosting/:id/git/deploy).',
    );
  if (row.webhookEnabled) return webhookView(ctx, id, row);
  const secret = `gdh_${randomBytes(24).toString('base64url')}`;
  const saved = await ctx.db.$transaction(async (tx) => {
    await panelChanged(tx, hosting, 'git', 'enabled', ctx.app.clock.now());
    return tx.hostingGitDeploy.update({
      where: { hostingId: id },
      data: {
        webhookEnabled: true,
        webhookSecretEnc: encryptSecret(ctx.app.webhookSecretKey, `git:${id}`, secret),
        updatedAt: ctx.app.clock.now(),
      },
    });
  });
  return webhookView(ctx, id, saved);
}

export async function disableGitWebhook(ctx: HostingContext, id: string) {
  const hosting = await activeHosting(ctx.db, id);
  await ctx.db.$transaction(async (tx) => {
    const { count } = await tx.hostingGitDeploy.updateMany({
      where: { hostingId: id, webhookEnabled: true },
      data: { webhookEnabled: false, webhookSecretEnc: null, updatedAt: ctx.app.clock.now() },
    });
    if (count) await panelChanged(tx, hosting, 'git', 'disabled', ctx.app.clock.now());
  });
  return { enabled: false, url: null, secret: null };
}
