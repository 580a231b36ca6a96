import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import bcrypt from 'bcryptjs';
import * as tar from 'tar';
import { scheduleJob, type JobHandler } from '../jobs.ts';
import type { Tx } from '../../db/tx.ts';
import { checkQuota, measure, minus, plus } from './quota.ts';
import { resolveInRoot } from './sandbox.ts';
import {
  HostingRefusal,
  type BackupResult,
  type Download,
  type HostingCallbacks,
  type HostingDriver,
  type ProvisionHostingRequest,
  type SiteQuota,
} from './types.ts';

import { ignoreExists, ignoreMissing } from './simulated-files.ts';
import { SimulatedSiteGit } from './simulated-git.ts';

/** Shared web nodes of the simulated datacenter and their addresses (inside 198.18.0.0/15). */
const NODES = [
  { node: 'web-fra1-01', ip: '198.18.0.21' },
  { node: 'web-fra1-02', ip: '198.18.0.22' },
  { node: 'web-ams2-01', ip: '198.18.0.23' },
];
/** Simulated seconds hosting provisioning takes. */
export const HOSTING_PROVISION_SECONDS = 60;

/**
 * The default hosting driver. Each account is a real directory tree:
 *
 *   DATA_DIR/hosting/<hostingId>/
 *     home/       what the file manager shows as "/": public_html/, logs/
 *     mysql/      one SQL dump per database (the simulated MySQL keeps its data here)
 *     backups/    <backupId>.tar.gz: home/ and mysql/ as a gzip tarball
 *     private/    deploy key (0600), known_hosts, crontab, htpasswd files, the git clone,
 *                 mysql-users/<database>: its user's bcrypt hash (the simulated MySQL's user table;
 *                 outside mysql/, so a backup never holds a password)
 *     tmp/        uploads and restores in progress (same file system, so renames are atomic)
 *
 * Nothing outside home/ is reachable through a customer path (sandbox.ts).
 */
export class SimulatedHostingDriver extends SimulatedSiteGit implements HostingDriver {
  constructor(
    private readonly callbacks: HostingCallbacks,
    opts: { dataDir: string; allowLocalGit: boolean },
  ) {
    super(opts);
  }
  readonly jobHandlers: Record<string, JobHandler> = {
    'hosting.provision': async (tx, payload: { hostingId: string; domain: string; username: string }, now) => {
      await this.createSite(payload.hostingId, payload.domain, payload.username, now);
      const row = await tx.providerHosting.findUnique({ where: { hostingId: payload.hostingId } });
      if (row)
        await tx.providerHosting.update({
          where: { hostingId: payload.hostingId },
          data: { provisioningLog: `${row.provisioningLog}${now.toISOString()} site created\n` },
        });
      await this.callbacks.hostingProvisioned(tx, payload.hostingId, now);
    },
  };

  private async createSite(id: string, domain: string, username: string, now: Date): Promise<void> {
    const base = this.accountDir(id);
    for (const d of ['home/public_html', 'home/logs', 'mysql', 'backups', 'private/htpasswd', 'tmp'])
      await fs.mkdir(path.join(base, d), { recursive: true });
    await fs.chmod(path.join(base, 'private'), 0o700);
    const index = path.join(base, 'home/public_html/index.html');
    await fs
      .writeFile(
        index,
        `<!doctype html>\n<title>${domain}</title>\n<h1>${domain} is hosted here</h1>\n<p>Upload your site to public_html.</p>\n`,
        { flag: 'wx' },
      )
      .catch(ignoreExists);
    await fs.writeFile(path.join(base, 'home/logs/access.log'), '', { flag: 'a' });
    await fs.writeFile(
      path.join(base, 'home/logs/error.log'),
      `${apacheTime(now)} [core:notice] [pid 1] virtual host ${domain} ready (user ${username})\n`,
      { flag: 'a' },
    );
    await fs.writeFile(path.join(base, 'private/log-cursor'), String(now.getTime()));
    await this.ensureDeployKey(id);
  }

  // ------------------------------------------------------------ provisioning and DNS

  async provision(tx: Tx, req: ProvisionHostingRequest, now: Date): Promise<{ ip: string }> {
    const { node, ip } = NODES[randomInt(NODES.length)];
    await tx.providerHosting.create({
      data: {
        hostingId: req.hostingId,
        node,
        provisioningLog: `${now.toISOString()} queued ${req.productId} for ${req.domain} as ${req.username}\n`,
      },
    });
    await scheduleJob(tx, 'hosting.provision', new Date(now.getTime() + HOSTING_PROVISION_SECONDS * 1000), {
      hostingId: req.hostingId,
      domain: req.domain,
      username: req.username,
    });
    return { ip };
  }

  async resolveDns(tx: Tx, hostname: string): Promise<string | null> {
    const row = await tx.simDnsRecord.findUnique({ where: { hostname } });
    return row?.target ?? null;
  }

  async setDns(tx: Tx, hostname: string, target: string | null): Promise<void> {
    if (target === null) await tx.simDnsRecord.deleteMany({ where: { hostname } });
    else await tx.simDnsRecord.upsert({ where: { hostname }, create: { hostname, target }, update: { target } });
  }

  // ------------------------------------------------------------ logs

  async tailLog(id: string, kind: 'access' | 'error', lines: number, now: Date): Promise<string[]> {
    await this.appendTraffic(id, now);
    const file = path.join(this.home(id), 'logs', `${kind}.log`);
    // Read the log the site wrote (a customer may have replaced logs/ with a link: resolve inside the root).
    const r = await resolveInRoot(this.home(id), `/logs/${kind}.log`).catch(() => null);
    if (!r?.real || r.real !== file) return [];
    const handle = await fs.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 512 * 1024);
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, size - length);
      const all = buf.toString('utf8').split('\n').filter(Boolean);
      return all.slice(-lines);
    } finally {
      await handle.close();
    }
  }

  /** The simulated web traffic since the last read: two requests per simulated minute (at most 200 per read). */
  private async appendTraffic(id: string, now: Date): Promise<void> {
    const cursorFile = path.join(this.dir(id, 'private'), 'log-cursor');
    const last = Number(await fs.readFile(cursorFile, 'utf8').catch(() => String(now.getTime())));
    const count = Math.min(200, Math.floor((now.getTime() - last) / 30_000));
    if (count <= 0) return;
    const pages = ['/', '/index.html', '/about', '/contact', '/wp-login.php', '/assets/site.css', '/favicon.ico'];
    const access: string[] = [];
    const errors: string[] = [];
    for (let i = 1; i <= count; i++) {
      const at = new Date(last + i * 30_000);
      const h = createHash('sha256').update(`${id}:${at.getTime()}`).digest();
      const page = pages[h[0] % pages.length];
      const status = page === '/wp-login.php' ? 404 : page === '/contact' && h[1] % 5 === 0 ? 500 : 200;
      access.push(
        `203.0.113.${1 + (h[2] % 254)} - - [${clfTime(at)}] "GET ${page} HTTP/1.1" ${status} ${status === 200 ? 500 + h.readUInt16BE(3) : 196} "-" "Mozilla/5.0 (simulated visitor)"`,
      );
      if (status === 404)
        errors.push(
          `${apacheTime(at)} [core:info] [client 203.0.113.${1 + (h[2] % 254)}] AH00128: File does not exist: ${page}`,
        );
      if (status === 500)
        errors.push(
          `${apacheTime(at)} [proxy_fcgi:error] [client 203.0.113.${1 + (h[2] % 254)}] AH01071: PHP Fatal error: Uncaught Error in ${page}.php`,
        );
    }
    const logs = path.join(this.home(id), 'logs');
    const safe = await resolveInRoot(this.home(id), '/logs').catch(() => null);
    if (safe?.real === logs) {
      await fs.appendFile(path.join(logs, 'access.log'), `${access.join('\n')}\n`).catch(() => undefined);
      if (errors.length)
        await fs.appendFile(path.join(logs, 'error.log'), `${errors.join('\n')}\n`).catch(() => undefined);
    }
    await fs.writeFile(cursorFile, String(last + count * 30_000));
  }

  // ------------------------------------------------------------ databases, cron, htpasswd

  private mysqlUser(id: string, name: string): string {
    return path.join(this.dir(id, 'private'), 'mysql-users', name);
  }

  async createDatabase(id: string, name: string, now: Date): Promise<void> {
    // A user left by a database of the same name that a restore dropped: the new one starts without a password.
    await fs.rm(this.mysqlUser(id, name), { force: true });
    const dump = `-- MySQL dump (simulated MySQL 8.0)\n-- Database: ${name}\n-- Created: ${now.toISOString()}\n\nCREATE DATABASE IF NOT EXISTS \`${name}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci;\nUSE \`${name}\`;\n`;
    await fs.writeFile(path.join(this.dir(id, 'mysql'), `${name}.sql`), dump, { flag: 'wx' }).catch(ignoreExists);
  }

  async dropDatabase(id: string, name: string): Promise<void> {
    await fs.rm(path.join(this.dir(id, 'mysql'), `${name}.sql`), { force: true });
    await fs.rm(this.mysqlUser(id, name), { force: true });
  }

  async databaseSignIn(id: string, user: string, password: string): Promise<boolean> {
    if (!/^[a-z0-9_]+$/.test(user)) return false;
    const line = await fs.readFile(this.mysqlUser(id, user), 'utf8').catch((err: NodeJS.ErrnoException) => {
      ignoreMissing(err);
      return '';
    });
    // A user with no password set yet cannot sign in.
    const hash = line.trim().split(':')[1];
    return hash ? bcrypt.compare(password, hash) : false;
  }

  async setDatabasePassword(id: string, name: string, hash: string): Promise<void> {
    const file = this.mysqlUser(id, name);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await this.atomicWrite(id, file, (tmp) => fs.writeFile(tmp, `${name}:${hash}\n`, { flag: 'wx', mode: 0o600 }));
  }

  async writeCrontab(id: string, text: string): Promise<void> {
    await this.atomicWrite(id, path.join(this.dir(id, 'private'), 'crontab'), (tmp) =>
      fs.writeFile(tmp, text, { flag: 'wx', mode: 0o600 }),
    );
  }

  async writeHtpasswd(id: string, dirPath: string, entry: { user: string; hash: string } | null): Promise<void> {
    const file = path.join(
      this.dir(id, 'private'),
      'htpasswd',
      `${createHash('sha256').update(dirPath).digest('hex').slice(0, 24)}.htpasswd`,
    );
    if (!entry) return void (await fs.rm(file, { force: true }));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await this.atomicWrite(id, file, (tmp) =>
      fs.writeFile(tmp, `${entry.user}:${entry.hash}\n`, { flag: 'wx', mode: 0o640 }),
    );
  }

  // ------------------------------------------------------------ backups

  private backupFile(id: string, backupId: string) {
    if (!/^hbk_[0-9a-z]{26}$/.test(backupId)) throw new Error(`Not a backup id: ${backupId}`);
    return path.join(this.dir(id, 'backups'), `${backupId}.tar.gz`);
  }

  async createBackup(id: string, backupId: string, quota?: SiteQuota): Promise<BackupResult> {
    const base = this.accountDir(id);
    await fs.mkdir(path.join(base, 'mysql'), { recursive: true });
    const file = this.backupFile(id, backupId);
    const part = `${file}.part`;
    const used = await this.usage(id);
    try {
      // Links are stored as links (never followed), so nothing outside the account is archived.
      await tar.c({ gzip: true, file: part, cwd: base, portable: true, follow: false }, ['home', 'mysql']);
      // The archive counts toward the quota: one that does not fit is removed.
      checkQuota(used, plus(used, { diskBytes: (await fs.stat(part)).size, inodes: 1 }), quota);
      await fs.rename(part, file);
    } catch (err) {
      await fs.rm(part, { force: true });
      throw err;
    }
    const hash = createHash('sha256');
    await pipeline(createReadStream(file), hash);
    const databases = (await fs.readdir(path.join(base, 'mysql')))
      .filter((n) => n.endsWith('.sql'))
      .map((n) => n.slice(0, -4))
      .sort();
    return { sizeBytes: (await fs.stat(file)).size, sha256: hash.digest('hex'), databases };
  }

  async restoreBackup(id: string, backupId: string, quota?: SiteQuota): Promise<{ databases: string[] }> {
    const base = this.accountDir(id);
    const work = path.join(this.dir(id, 'tmp'), `restore-${randomBytes(8).toString('hex')}`);
    await fs.mkdir(work);
    try {
      // Only plain files and directories come back; tar refuses absolute paths and "..".
      await tar.x({
        file: this.backupFile(id, backupId),
        cwd: work,
        strict: true,
        preservePaths: false,
        filter: (p, entry) =>
          ['File', 'OldFile', 'ContiguousFile', 'Directory'].includes((entry as { type?: string }).type ?? '') &&
          /^(home|mysql)(\/|$)/.test(p),
      });
      await fs.mkdir(path.join(work, 'home', 'public_html'), { recursive: true });
      await fs.mkdir(path.join(work, 'mysql'), { recursive: true });
      // The restored site replaces the current one (backups and the clone stay): it must fit,
      // unless it is smaller than what is there.
      if (quota) {
        const used = await this.usage(id);
        const replaced = await measure([this.home(id), this.dir(id, 'mysql')]);
        const restored = await measure([path.join(work, 'home'), path.join(work, 'mysql')]);
        checkQuota(used, plus(used, plus(restored, minus(replaced))), quota);
      }
      for (const part of ['home', 'mysql']) {
        const old = path.join(work, `old-${part}`);
        await fs.rename(path.join(base, part), old).catch(ignoreMissing);
        await fs.rename(path.join(work, part), path.join(base, part));
      }
      return {
        databases: (await fs.readdir(path.join(base, 'mysql')))
          .filter((n) => n.endsWith('.sql'))
          .map((n) => n.slice(0, -4))
          .sort(),
      };
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  }

  async deleteBackup(id: string, backupId: string): Promise<void> {
    await fs.rm(this.backupFile(id, backupId), { force: true });
  }

  async openBackup(id: string, backupId: string): Promise<Download> {
    const file = this.backupFile(id, backupId);
    const st = await fs.stat(file).catch(() => null);
    if (!st) throw new HostingRefusal('not_found', 'The backup archive is missing.');
    return { path: file, name: `${backupId}.tar.gz`, sizeBytes: st.size, open: () => createReadStream(file) };
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const pad = (n: number) => String(n).padStart(2, '0');
/** Common Log Format time: 21/Nov/2026:06:30:13 +0000 */
function clfTime(d: Date): string {
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}
/** Apache error-log time: [Sat Nov 21 06:30:13.000000 2026] */
function apacheTime(d: Date): string {
  return `[${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.000000 ${d.getUTCFullYear()}]`;
}
