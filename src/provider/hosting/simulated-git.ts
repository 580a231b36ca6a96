import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkGitEgress, headCommit, isLocalRepo, runGit, type PinnedHost } from './git.ts';
import { checkQuota, measure, minus, plus, remaining } from './quota.ts';
import { pathSegments, requireParentDir } from './sandbox.ts';
import { fingerprintOfLine, generateDeployKey } from './ssh-key.ts';
import { HostingRefusal, type DeployKey, type GitCommit, type SiteQuota, type SiteUsage } from './types.ts';
import { replacing, SimulatedSiteFiles } from './simulated-files.ts';

/**
 * Git deploy of a simulated hosting account: its deploy key, the clone under private/, and
 * publishing the clone's files into public_html through the sandbox. The driver (simulated.ts)
 * builds on it.
 */
export class SimulatedSiteGit extends SimulatedSiteFiles {
  protected async ensureDeployKey(id: string): Promise<void> {
    const priv = path.join(this.dir(id, 'private'), 'deploy_key');
    if (await fs.stat(`${priv}.pub`).catch(() => null)) return;
    await fs.mkdir(path.dirname(priv), { recursive: true, mode: 0o700 });
    const key = generateDeployKey(`deploy@${id}`);
    await fs.writeFile(priv, key.privateKey, { mode: 0o600 });
    await fs.chmod(priv, 0o600);
    await fs.writeFile(`${priv}.pub`, `${key.publicKey}\n`, { mode: 0o644 });
  }

  async deployKey(id: string): Promise<DeployKey> {
    await this.ensureDeployKey(id);
    const publicKey = (await fs.readFile(path.join(this.dir(id, 'private'), 'deploy_key.pub'), 'utf8')).trim();
    return { type: 'ssh-ed25519', publicKey, fingerprint: fingerprintOfLine(publicKey) };
  }

  private gitOpts(id: string, cwd: string, pin: PinnedHost | null = null) {
    const priv = this.dir(id, 'private');
    return {
      cwd,
      sshKey: path.join(priv, 'deploy_key'),
      knownHosts: path.join(priv, 'known_hosts'),
      allowLocal: this.opts.allowLocalGit,
      pin,
    };
  }

  async gitDeploy(
    id: string,
    req: { repoUrl: string; branch: string; subdir: string; quota?: SiteQuota },
  ): Promise<GitCommit> {
    if (isLocalRepo(req.repoUrl) && !this.opts.allowLocalGit)
      throw new HostingRefusal('invalid', 'repo_url must be an SSH repository address.', 'repo_url');
    const pin = await checkGitEgress(req.repoUrl, this.opts.allowLocalGit);
    await this.ensureDeployKey(id);
    const priv = this.dir(id, 'private');
    const fresh = path.join(priv, `repo-${randomBytes(6).toString('hex')}`);
    // The clone counts toward the quota, in place of the one it replaces: it may take what is left.
    const previous = await measure([this.gitClone(id)]);
    const bound = req.quota
      ? { dir: fresh, limit: remaining(plus(await this.usage(id), minus(previous)), req.quota) }
      : undefined;
    try {
      await runGit(['clone', '--branch', req.branch, '--single-branch', '--no-tags', '--', req.repoUrl, fresh], {
        ...this.gitOpts(id, priv, pin),
        bound,
      });
      // Checked on the fresh clone, so a refused deploy leaves the previous one (clone and site) as it was.
      const cloneGrowth = plus(await measure([fresh]), minus(previous));
      await this.guardPublish(id, fresh, req.subdir, req.quota, cloneGrowth);
      await fs.rm(this.gitClone(id), { recursive: true, force: true });
      await fs.rename(fresh, this.gitClone(id));
    } catch (err) {
      await fs.rm(fresh, { recursive: true, force: true });
      throw err;
    }
    await this.sync(id, req.subdir);
    return headCommit(this.gitClone(id), this.opts.allowLocalGit);
  }

  async gitPull(id: string, req: { branch: string; subdir: string; quota?: SiteQuota }): Promise<GitCommit> {
    const repo = this.gitClone(id);
    if (!(await fs.stat(repo).catch(() => null)))
      throw new HostingRefusal('git_failed', 'The repository clone is missing; deploy it again.');
    // The name is checked again at each fetch: it may resolve elsewhere since the deploy.
    const origin = (await runGit(['remote', 'get-url', 'origin'], this.gitOpts(id, repo))).trim();
    const pin = await checkGitEgress(origin, this.opts.allowLocalGit);
    // The clone may grow by what is left of the quota.
    const bound = req.quota
      ? { dir: repo, limit: plus(await measure([repo]), remaining(await this.usage(id), req.quota)) }
      : undefined;
    try {
      await runGit(['fetch', '--no-tags', 'origin', req.branch], { ...this.gitOpts(id, repo, pin), bound });
      await runGit(['reset', '--hard', 'FETCH_HEAD'], { ...this.gitOpts(id, repo), bound });
    } catch (err) {
      if (!(err instanceof HostingRefusal && err.reason === 'quota')) throw err;
      // A stopped transfer leaves partial objects: the clone goes (the published site stays).
      await fs.rm(repo, { recursive: true, force: true });
      throw new HostingRefusal(
        'quota',
        `${err.message} The clone was removed; deploy the repository again once it fits.`,
      );
    }
    await this.guardPublish(id, repo, req.subdir, req.quota);
    await this.sync(id, req.subdir);
    return headCommit(repo, this.opts.allowLocalGit);
  }

  async gitDisconnect(id: string): Promise<void> {
    const priv = this.dir(id, 'private');
    await fs.rm(path.join(priv, 'repo'), { recursive: true, force: true });
    await fs.rm(path.join(priv, 'deploy-manifest.json'), { force: true });
  }

  private async previousDeploy(id: string): Promise<string[]> {
    return JSON.parse(
      await fs.readFile(path.join(this.dir(id, 'private'), 'deploy-manifest.json'), 'utf8').catch(() => '[]'),
    );
  }

  /**
   * Refuses publishing `repo` when what it adds to the site (its files over the ones they
   * replace, new directories, less the previous deploy's files it drops, and `cloneGrowth`: a
   * fresh clone over the one it replaces) passes the quota.
   */
  private async guardPublish(
    id: string,
    repo: string,
    subdir: string,
    quota: SiteQuota | undefined,
    cloneGrowth: SiteUsage = { diskBytes: 0, inodes: 0 },
  ): Promise<void> {
    if (!quota) return;
    const targetRel = publishRoot(subdir);
    let delta: SiteUsage = { diskBytes: 0, inodes: 0 };
    const newDirs = new Set<string>();
    const published = new Set<string>();
    for (const rel of await repoFiles(repo)) {
      const dest = path.posix.join(targetRel, rel);
      published.add(dest);
      const existing = (await this.resolve(id, dest, 'subdir')).stat;
      delta = plus(delta, replacing(existing, (await fs.stat(path.join(repo, rel))).size));
      for (let dir = path.posix.dirname(dest); dir !== '/' && !newDirs.has(dir); dir = path.posix.dirname(dir)) {
        if ((await this.resolve(id, dir, 'subdir')).stat) break;
        newDirs.add(dir);
      }
    }
    for (const old of await this.previousDeploy(id)) {
      if (published.has(old)) continue;
      const st = (await this.resolve(id, old).catch(() => null))?.stat;
      if (st?.isFile()) delta = plus(delta, { diskBytes: -st.size, inodes: -1 });
    }
    delta = plus(delta, plus(cloneGrowth, { diskBytes: 0, inodes: newDirs.size }));
    if (delta.diskBytes <= 0 && delta.inodes <= 0) return;
    const used = await this.usage(id);
    checkQuota(used, plus(used, delta), quota);
  }

  /**
   * Publishes the clone's files (not .git) into /public_html/<subdir>: each file is written
   * through the sandbox, and files the previous deploy published but the repository no
   * longer has are removed. Other files in the directory are left alone.
   */
  private async sync(id: string, subdir: string): Promise<void> {
    const priv = this.dir(id, 'private');
    const repo = path.join(priv, 'repo');
    const targetRel = publishRoot(subdir);
    const published = await repoFiles(repo);
    for (const rel of published) {
      const dest = await this.resolve(id, path.posix.join(targetRel, rel), 'subdir');
      if (dest.stat?.isDirectory()) await fs.rm(await this.physical(id, dest, 'subdir'), { recursive: true });
      await this.mkdirs(id, path.posix.dirname(dest.rel));
      const target = await requireParentDir(this.home(id), await this.resolve(id, dest.rel, 'subdir'), 'subdir');
      await this.atomicWrite(id, target, (tmp) => fs.copyFile(path.join(repo, rel), tmp, fs.constants.COPYFILE_EXCL));
    }
    const manifestFile = path.join(priv, 'deploy-manifest.json');
    const previous = await this.previousDeploy(id);
    const now = new Set(published.map((rel) => path.posix.join(targetRel, rel)));
    for (const old of previous) {
      if (now.has(old)) continue;
      const r = await this.resolve(id, old).catch(() => null);
      if (r?.stat?.isFile()) await fs.unlink(await this.physical(id, r, 'subdir'));
    }
    await fs.writeFile(manifestFile, JSON.stringify([...now]));
  }
}

/** /public_html/<subdir>: where a deploy publishes. */
const publishRoot = (subdir: string) => path.posix.join('/public_html', ...pathSegments(subdir || '/', 'subdir'));

/** The files of a clone (not .git), relative to it. */
async function repoFiles(repo: string): Promise<string[]> {
  const files: string[] = [];
  const stack = [''];
  while (stack.length) {
    const relDir = stack.pop()!;
    for (const e of await fs.readdir(path.join(repo, relDir), { withFileTypes: true })) {
      if (relDir === '' && e.name === '.git') continue;
      const rel = path.posix.join(relDir, e.name);
      if (e.isDirectory()) stack.push(rel);
      else if (e.isFile()) files.push(rel);
    }
  }
  return files;
}
