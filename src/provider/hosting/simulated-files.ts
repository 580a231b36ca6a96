import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathSegments, PathRefused, requireParentDir, resolveInRoot, type ResolvedPath } from './sandbox.ts';
import { checkQuota, measure, plus } from './quota.ts';
import {
  HostingRefusal,
  type DirListing,
  type Download,
  type FileEntry,
  type SiteQuota,
  type SiteUsage,
  type TextFile,
} from './types.ts';

/**
 * The file side of a simulated hosting account: its directory layout and the sandboxed file
 * manager (every customer path resolved inside home/, sandbox.ts). Git deploy (simulated-git.ts)
 * and then the driver (simulated.ts: provisioning, logs, databases, backups) build on top.
 */
export class SimulatedSiteFiles {
  constructor(protected readonly opts: { dataDir: string; allowLocalGit: boolean }) {}

  accountDir(hostingId: string): string {
    if (!/^hst_[0-9a-z]{26}$/.test(hostingId)) throw new Error(`Not a hosting id: ${hostingId}`);
    return path.join(this.opts.dataDir, 'hosting', hostingId);
  }
  protected home(id: string) {
    return path.join(this.accountDir(id), 'home');
  }
  protected dir(id: string, name: 'mysql' | 'backups' | 'private' | 'tmp') {
    return path.join(this.accountDir(id), name);
  }

  protected async resolve(id: string, p: unknown, field = 'path'): Promise<ResolvedPath> {
    return resolveInRoot(this.home(id), p, field);
  }

  protected async existing(
    id: string,
    p: unknown,
    field = 'path',
  ): Promise<ResolvedPath & { stat: Stats; real: string }> {
    const r = await this.resolve(id, p, field);
    if (!r.stat || !r.real)
      throw new HostingRefusal('not_found', `${field} ${JSON.stringify(r.rel)} does not exist.`, field);
    return r as ResolvedPath & { stat: Stats; real: string };
  }

  /** The entry itself on disk (its parent's real path + its name): what delete and rename act on. */
  protected async physical(id: string, r: ResolvedPath, field: string): Promise<string> {
    const parent = await fs.realpath(path.dirname(r.abs));
    const rootReal = await fs.realpath(this.home(id));
    if (parent !== rootReal && !parent.startsWith(rootReal + path.sep))
      throw new PathRefused(field, `${field} ${JSON.stringify(r.rel)} is refused: it leads outside the account.`);
    return path.join(parent, path.basename(r.abs));
  }

  protected async entry(rel: string, abs: string): Promise<FileEntry> {
    const st = await fs.lstat(abs);
    return {
      name: rel === '/' ? '/' : path.posix.basename(rel),
      path: rel,
      type: st.isDirectory() ? 'directory' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other',
      sizeBytes: st.isFile() ? st.size : 0,
      modifiedAt: st.mtime,
      permissions: `0${(st.mode & 0o777).toString(8)}`,
    };
  }

  async listDir(id: string, p: string, limit: number): Promise<DirListing> {
    const r = await this.existing(id, p);
    if (!(await fs.stat(r.real)).isDirectory())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(r.rel)} is a file, not a directory.`, 'path');
    const names = (await fs.readdir(r.real)).sort();
    const entries: FileEntry[] = [];
    for (const name of names.slice(0, limit)) {
      entries.push(await this.entry(path.posix.join(r.rel, name), path.join(r.real, name)));
    }
    entries.sort(
      (a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || a.name.localeCompare(b.name),
    );
    return { path: r.rel, entries, truncated: names.length > limit };
  }

  async readText(id: string, p: string, maxBytes: number): Promise<TextFile> {
    const r = await this.existing(id, p);
    const st = await fs.stat(r.real);
    if (!st.isFile())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(r.rel)} is a directory, not a file.`, 'path');
    if (st.size > maxBytes)
      throw new HostingRefusal(
        'invalid',
        `path ${JSON.stringify(r.rel)} is ${st.size} bytes, more than the ${maxBytes} bytes files/read returns; download it instead.`,
        'path',
      );
    const data = await fs.readFile(r.real);
    if (!isText(data)) {
      throw new HostingRefusal(
        'binary',
        `path ${JSON.stringify(r.rel)} is a binary file, not UTF-8 text; download it with GET /hosting/:id/files/download instead.`,
        'path',
      );
    }
    return { path: r.rel, content: data.toString('utf8'), sizeBytes: st.size, modifiedAt: st.mtime };
  }

  async writeText(id: string, p: string, content: string, quota?: SiteQuota): Promise<FileEntry> {
    const r = await this.resolve(id, p);
    if (r.stat && (await fs.stat(r.real!)).isDirectory())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(r.rel)} is a directory.`, 'path');
    const target = await requireParentDir(this.home(id), r);
    await this.guardQuota(id, quota, replacing(r.stat, Buffer.byteLength(content)));
    await this.atomicWrite(id, target, async (tmp) => fs.writeFile(tmp, content, { flag: 'wx' }));
    return this.entry(r.rel, target);
  }

  /** Refuses a change that adds `delta` to the site when that passes its quota (quota.ts). */
  protected async guardQuota(id: string, quota: SiteQuota | undefined, delta: SiteUsage): Promise<void> {
    if (!quota || (delta.diskBytes <= 0 && delta.inodes <= 0)) return;
    const used = await this.usage(id);
    checkQuota(used, plus(used, delta), quota);
  }

  protected async atomicWrite(id: string, target: string, write: (tmp: string) => Promise<unknown>): Promise<void> {
    const tmp = path.join(this.dir(id, 'tmp'), `write-${randomBytes(8).toString('hex')}`);
    try {
      await write(tmp);
      await fs.rename(tmp, target);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  async remove(id: string, p: string, recursive: boolean) {
    const r = await this.existing(id, p);
    if (r.rel === '/')
      throw new HostingRefusal('invalid', 'path "/" is the account root and cannot be deleted.', 'path');
    const target = await this.physical(id, r, 'path');
    const type = (await this.entry(r.rel, target)).type;
    if (r.stat.isDirectory()) {
      if (!recursive && (await fs.readdir(target)).length > 0) {
        throw new HostingRefusal(
          'invalid',
          `path ${JSON.stringify(r.rel)} is a directory that is not empty; pass recursive=true to delete it with its contents.`,
          'recursive',
        );
      }
      // fs.rm never follows symlinks inside the tree: a link is removed, not its target.
      await fs.rm(target, { recursive: true });
    } else {
      await fs.unlink(target);
    }
    return { path: r.rel, type };
  }

  async mkdir(id: string, p: string, quota?: SiteQuota): Promise<FileEntry> {
    const r = await this.resolve(id, p);
    if (r.stat) throw new HostingRefusal('exists', `path ${JSON.stringify(r.rel)} already exists.`, 'path');
    const target = await requireParentDir(this.home(id), r);
    await this.guardQuota(id, quota, { diskBytes: 0, inodes: 1 });
    await fs.mkdir(target);
    return this.entry(r.rel, target);
  }

  async rename(id: string, from: string, to: string): Promise<FileEntry> {
    const src = await this.existing(id, from, 'from');
    if (src.rel === '/')
      throw new HostingRefusal('invalid', 'from "/" is the account root and cannot be moved.', 'from');
    const dst = await this.resolve(id, to, 'to');
    if (dst.stat) throw new HostingRefusal('exists', `to ${JSON.stringify(dst.rel)} already exists.`, 'to');
    if (dst.rel.startsWith(`${src.rel}/`))
      throw new HostingRefusal(
        'invalid',
        `to ${JSON.stringify(dst.rel)} is inside from ${JSON.stringify(src.rel)}: a directory cannot move into itself.`,
        'to',
      );
    const source = await this.physical(id, src, 'from');
    const target = await requireParentDir(this.home(id), dst, 'to');
    await fs.rename(source, target);
    return this.entry(dst.rel, target);
  }

  /** A directory target keeps the file's name; any other path is the file's own (its directory must exist). Without a name: only the path is checked. */
  async uploadTarget(id: string, p: string, fileName: string | null): Promise<string> {
    const r = await this.resolve(id, p);
    const isDir = r.stat !== null && (await fs.stat(r.real!)).isDirectory();
    if (fileName === null) {
      if (!isDir) await requireParentDir(this.home(id), r);
      return r.rel;
    }
    const rel = isDir ? path.posix.join(r.rel, uploadName(fileName)) : r.rel;
    const t = await this.resolve(id, rel);
    if (t.stat && (await fs.stat(t.real!)).isDirectory())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(t.rel)} is a directory.`, 'path');
    await requireParentDir(this.home(id), t);
    return t.rel;
  }

  async upload(
    id: string,
    p: string,
    fileName: string,
    source: NodeJS.ReadableStream & { truncated?: boolean },
    limitBytes: number,
    quota?: SiteQuota,
  ): Promise<FileEntry> {
    const rel = await this.uploadTarget(id, p, fileName);
    let seen = 0;
    // Past the limit the rest is read and dropped, not refused mid-stream: destroying the
    // multipart parser's file stream stalls the parser (and the request) for good.
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > limitBytes) done();
        else done(null, chunk);
      },
    });
    const tmp = path.join(this.dir(id, 'tmp'), `upload-${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(source, counter, createWriteStream(tmp, { flags: 'wx' }));
      if (source.truncated || seen > limitBytes)
        throw new HostingRefusal(
          'too_large',
          `The file is larger than the upload limit of ${limitBytes} bytes.`,
          'file',
        );
      // Re-resolve after the body arrived: the target is checked again right before the rename.
      const dest = await this.resolve(id, rel);
      const target = await requireParentDir(this.home(id), dest);
      // The staged file (under tmp/, which the quota does not count) is measured, not announced.
      await this.guardQuota(id, quota, replacing(dest.stat, seen));
      await fs.rename(tmp, target);
      return this.entry(rel, target);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  async download(id: string, p: string): Promise<Download> {
    const r = await this.existing(id, p);
    const st = await fs.stat(r.real);
    if (!st.isFile())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(r.rel)} is a directory, not a file.`, 'path');
    const real = r.real;
    return { path: r.rel, name: path.posix.basename(r.rel), sizeBytes: st.size, open: () => createReadStream(real) };
  }

  async requireDirectory(id: string, p: string): Promise<string> {
    const r = await this.existing(id, p);
    if (!(await fs.stat(r.real)).isDirectory())
      throw new HostingRefusal('invalid', `path ${JSON.stringify(r.rel)} is a file, not a directory.`, 'path');
    return r.rel;
  }

  /** The quota counts the site (home, databases) and what it keeps beside it: backup archives and the git clone. */
  async usage(id: string): Promise<SiteUsage> {
    return measure([this.home(id), this.dir(id, 'mysql'), this.dir(id, 'backups'), this.gitClone(id)]);
  }

  /** Where git deploy keeps the repository's clone. */
  protected gitClone(id: string): string {
    return path.join(this.dir(id, 'private'), 'repo');
  }

  /** mkdir -p inside the sandbox, each level checked. */
  protected async mkdirs(id: string, rel: string): Promise<void> {
    let current = '';
    for (const seg of pathSegments(rel, 'subdir')) {
      current = `${current}/${seg}`;
      const r = await this.resolve(id, current, 'subdir');
      if (r.stat) {
        if (!(await fs.stat(r.real!)).isDirectory())
          throw new HostingRefusal(
            'invalid',
            `subdir: ${JSON.stringify(current)} is a file, not a directory.`,
            'subdir',
          );
        continue;
      }
      await fs.mkdir(await requireParentDir(this.home(id), r, 'subdir'));
    }
  }
}

/** What putting a file of `bytes` where `existing` is (or nothing is) adds to a site's usage. */
export function replacing(existing: Stats | null, bytes: number): SiteUsage {
  return { diskBytes: bytes - (existing?.isFile() ? existing.size : 0), inodes: existing ? 0 : 1 };
}

/** A multipart file name: one plain name, no separators, no traversal. */
function uploadName(fileName: string): string {
  const segments = pathSegments(fileName, 'file');
  if (segments.length !== 1 || segments[0] !== fileName)
    throw new PathRefused('file', `file name ${JSON.stringify(fileName)} must be a plain name without "/".`);
  return fileName;
}

/** UTF-8 text without NUL bytes. */
function isText(data: Buffer): boolean {
  if (data.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

export function ignoreExists(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EEXIST') throw err;
}
export function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
