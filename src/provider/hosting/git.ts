import { execFile } from 'node:child_process';
import path from 'node:path';
import { EgressRefused, resolveGitTarget } from '../../egress/policy.ts';
import { measure } from './quota.ts';
import { HostingRefusal, type GitCommit, type SiteUsage } from './types.ts';

/** Longest a clone, fetch or log may run. */
const GIT_TIMEOUT_MS = 60_000;
/** How often a bounded git command's directory is measured. */
const BOUND_POLL_MS = 100;

/** A directory git may not grow past: what is left of the site's quota (a clone, a fetch). */
export interface GitBound {
  dir: string;
  limit: SiteUsage;
}

/**
 * Runs the real `git` binary: execFile with an argument array (no shell, so nothing in a
 * URL or branch is interpreted), a timeout, no terminal prompts, no system or global
 * config, and only the ssh transport allowed (plus file when local repositories are
 * allowed for development and tests). Symlinks in a repository check out as plain files.
 * With `pin`, ssh connects to the address the egress policy checked (HostName) while host
 * keys stay filed under the repository's host name (HostKeyAlias); `-F /dev/null` keeps any
 * ssh_config (a ProxyCommand, a Match block) from sending the connection elsewhere.
 */
export function runGit(
  args: string[],
  opts: {
    cwd?: string;
    sshKey?: string;
    knownHosts?: string;
    allowLocal: boolean;
    timeoutMs?: number;
    pin?: PinnedHost | null;
    /** Killed as soon as this directory passes its limit (and refused when it ends past it): HostingRefusal('quota'). */
    bound?: GitBound;
  },
): Promise<string> {
  const config = [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.ssh.allow=always',
    '-c',
    `protocol.file.allow=${opts.allowLocal ? 'always' : 'never'}`,
    '-c',
    'core.symlinks=false',
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'advice.detachedHead=false',
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: opts.cwd ?? process.cwd(),
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    LC_ALL: 'C',
  };
  if (opts.sshKey) {
    // git runs GIT_SSH_COMMAND through sh: the (operator-chosen) paths are single-quoted.
    env.GIT_SSH_COMMAND = [
      'ssh',
      '-F',
      '/dev/null',
      '-i',
      shellQuote(opts.sshKey),
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-o',
      shellQuote(`UserKnownHostsFile=${opts.knownHosts ?? '/dev/null'}`),
      '-o',
      'ConnectTimeout=15',
      // Both values passed the policy's character check (letters, digits, ".", "-", ":", brackets).
      ...(opts.pin
        ? ['-o', shellQuote(`HostName=${opts.pin.address}`), '-o', shellQuote(`HostKeyAlias=${opts.pin.host}`)]
        : []),
    ].join(' ');
  }
  const { bound } = opts;
  let overBound = false;
  const run = new Promise<string>((resolve, reject) => {
    const child = execFile(
      'git',
      [...config, ...args],
      {
        cwd: opts.cwd,
        env,
        timeout: opts.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: 4 * 1024 * 1024,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        clearInterval(watch);
        if (overBound) reject(quotaStop(args[0], bound!));
        else if (err) {
          const timedOut = (err as { killed?: boolean }).killed;
          const detail = timedOut
            ? `timed out after ${Math.round((opts.timeoutMs ?? GIT_TIMEOUT_MS) / 1000)} s`
            : lastLines(stderr) || err.message;
          reject(new HostingRefusal('git_failed', `git ${args[0]} failed: ${detail}`));
        } else resolve(stdout);
      },
    );
    // The transfer stops at the quota, not after it: the directory is measured while git writes.
    let measuring = false;
    const watch =
      bound &&
      setInterval(async () => {
        if (measuring || overBound) return;
        measuring = true;
        try {
          if (passes(await measure([bound.dir]), bound.limit)) {
            overBound = true;
            child.kill('SIGKILL');
          }
        } catch {
          // Measured again at the next poll, and once git ends.
        } finally {
          measuring = false;
        }
      }, BOUND_POLL_MS);
  });
  return run.then(async (stdout) => {
    // A command quicker than one poll is measured once it ends.
    if (bound && passes(await measure([bound.dir]), bound.limit)) throw quotaStop(args[0], bound);
    return stdout;
  });
}

const passes = (u: SiteUsage, limit: SiteUsage) => u.diskBytes > limit.diskBytes || u.inodes > limit.inodes;

function quotaStop(command: string | undefined, bound: GitBound): HostingRefusal {
  return new HostingRefusal(
    'quota',
    `The repository does not fit in the plan's disk or inode quota (the git clone counts toward it): git ${command} was stopped once the clone passed ${bound.limit.diskBytes} bytes or ${bound.limit.inodes} files and directories. Delete files or backups, or move to a larger plan.`,
  );
}

export interface PinnedHost {
  /** The name host keys are filed under (HostKeyAlias). */
  host: string;
  /** The checked address ssh connects to (HostName). */
  address: string;
}

/**
 * The egress check of a repository address before any connection: its host resolved, refused
 * when not public (unless HOSTING_ALLOW_LOCAL_GIT=1), and the address to pin. Null for a local path.
 */
export async function checkGitEgress(repoUrl: string, allowLocal: boolean): Promise<PinnedHost | null> {
  try {
    const target = await resolveGitTarget(repoUrl, allowLocal);
    if (!target) return null;
    // Host keys stay filed as ssh files them without a pin: "[host]:port" off port 22.
    const port = repoUrl.startsWith('ssh://') ? new URL(repoUrl).port : '';
    return { host: port && port !== '22' ? `[${target.host}]:${port}` : target.host, address: target.address };
  } catch (err) {
    if (err instanceof EgressRefused) throw new HostingRefusal('invalid', err.message, 'repo_url');
    throw err;
  }
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function lastLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'))
    .slice(-3)
    .join(' ')
    .slice(0, 500);
}

export async function headCommit(repoDir: string, allowLocal: boolean): Promise<GitCommit> {
  const out = await runGit(['log', '-1', '--format=%H%x00%an <%ae>%x00%cI%x00%s'], { cwd: repoDir, allowLocal });
  const [sha, author, date, message] = out.trim().split('\0');
  return { sha, author, committedAt: new Date(date), message: message ?? '' };
}

/** Absolute local repository paths and file:// URLs, allowed only with HOSTING_ALLOW_LOCAL_GIT=1. */
export function isLocalRepo(url: string): boolean {
  return url.startsWith('file://') || path.isAbsolute(url);
}
