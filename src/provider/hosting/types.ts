import type { Readable } from 'node:stream';
import type { Tx } from '../../db/tx.ts';

/** One entry of a directory listing. */
/** What a path of a site can be. */
export const FILE_TYPES = ['file', 'directory', 'symlink', 'other'] as const;

export interface FileEntry {
  name: string;
  /** Customer path ("/public_html/index.html"). */
  path: string;
  type: (typeof FILE_TYPES)[number];
  sizeBytes: number;
  modifiedAt: Date;
  /** Octal mode, e.g. "0644". */
  permissions: string;
}

export interface DirListing {
  path: string;
  entries: FileEntry[];
  /** True when the directory holds more entries than a listing returns. */
  truncated: boolean;
}

export interface TextFile {
  path: string;
  content: string;
  sizeBytes: number;
  modifiedAt: Date;
}

/** A file to stream to the client. */
export interface Download {
  path: string;
  name: string;
  sizeBytes: number;
  open(): Readable;
}

export interface SiteUsage {
  diskBytes: number;
  inodes: number;
}

/**
 * The plan's limits on a site (home, databases, backup archives and the git clone), in the units of SiteUsage. A change that
 * would take usage past one of them (and is not a change that shrinks it) is refused with
 * HostingRefusal('quota'); deleting and shrinking always work, even over quota.
 */
export type SiteQuota = SiteUsage;

export interface BackupResult {
  sizeBytes: number;
  sha256: string;
  databases: string[];
}

export interface GitCommit {
  sha: string;
  message: string;
  author: string;
  committedAt: Date;
}

export interface DeployKey {
  type: 'ssh-ed25519';
  publicKey: string;
  fingerprint: string;
}

export interface ProvisionHostingRequest {
  hostingId: string;
  domain: string;
  username: string;
  productId: string;
}

/**
 * What the platform asks of the web-hosting upstream. The simulated driver keeps each
 * account's site as a real directory under DATA_DIR/hosting/<hostingId>/; a real driver
 * would talk to the hosting node's agent with the same calls.
 *
 * File methods take customer paths and refuse (PathRefused) anything that leaves the account.
 * Other refusals a customer can act on are HostingRefusal.
 */
export interface HostingDriver {
  /** Starts provisioning; completion comes later through HostingCallbacks.hostingProvisioned. */
  provision(tx: Tx, req: ProvisionHostingRequest, now: Date): Promise<{ ip: string }>;
  /** What a hostname points to in DNS (an address or another name), or null. */
  resolveDns(tx: Tx, hostname: string): Promise<string | null>;
  setDns(tx: Tx, hostname: string, target: string | null): Promise<void>;

  listDir(hostingId: string, path: string, limit: number): Promise<DirListing>;
  readText(hostingId: string, path: string, maxBytes: number): Promise<TextFile>;
  writeText(hostingId: string, path: string, content: string, quota?: SiteQuota): Promise<FileEntry>;
  remove(hostingId: string, path: string, recursive: boolean): Promise<{ path: string; type: FileEntry['type'] }>;
  mkdir(hostingId: string, path: string, quota?: SiteQuota): Promise<FileEntry>;
  rename(hostingId: string, from: string, to: string): Promise<FileEntry>;
  /** Checks an upload target before the body is read; returns where the file will land. */
  uploadTarget(hostingId: string, path: string, fileName: string | null): Promise<string>;
  /** Streams `source` to a temp file, then renames it into place. Over `limitBytes`: HostingRefusal('too_large'), nothing left behind. */
  upload(
    hostingId: string,
    path: string,
    fileName: string,
    source: Readable & { truncated?: boolean },
    limitBytes: number,
    quota?: SiteQuota,
  ): Promise<FileEntry>;
  download(hostingId: string, path: string): Promise<Download>;
  /** What the quota counts: home, databases, backup archives and the git clone. */
  usage(hostingId: string): Promise<SiteUsage>;
  tailLog(hostingId: string, kind: 'access' | 'error', lines: number, now: Date): Promise<string[]>;

  /** A new database, with a MySQL user of its name that has no password yet (so cannot sign in). */
  createDatabase(hostingId: string, name: string, now: Date): Promise<void>;
  /** Drops the database and its user. */
  dropDatabase(hostingId: string, name: string): Promise<void>;
  /** Sets the password of the database's user from its bcrypt hash: the password itself never reaches the driver. */
  setDatabasePassword(hostingId: string, name: string, hash: string): Promise<void>;
  /** Whether MySQL lets `user` sign in with `password` (the account's shell runs a client). */
  databaseSignIn(hostingId: string, user: string, password: string): Promise<boolean>;
  writeCrontab(hostingId: string, text: string): Promise<void>;
  /** Writes (hash) or removes (null) the htpasswd file protecting a directory. */
  writeHtpasswd(hostingId: string, dirPath: string, entry: { user: string; hash: string } | null): Promise<void>;
  /** Checks that a customer path names an existing directory; returns its normalised form. */
  requireDirectory(hostingId: string, path: string): Promise<string>;

  /** Over `quota` once written (the archive counts toward it): HostingRefusal('quota'), nothing left behind. */
  createBackup(hostingId: string, backupId: string, quota?: SiteQuota): Promise<BackupResult>;
  restoreBackup(hostingId: string, backupId: string, quota?: SiteQuota): Promise<{ databases: string[] }>;
  deleteBackup(hostingId: string, backupId: string): Promise<void>;
  openBackup(hostingId: string, backupId: string): Promise<Download>;

  deployKey(hostingId: string): Promise<DeployKey>;
  gitDeploy(
    hostingId: string,
    req: { repoUrl: string; branch: string; subdir: string; quota?: SiteQuota },
  ): Promise<GitCommit>;
  gitPull(hostingId: string, req: { branch: string; subdir: string; quota?: SiteQuota }): Promise<GitCommit>;
  gitDisconnect(hostingId: string): Promise<void>;
}

export interface HostingCallbacks {
  hostingProvisioned(tx: Tx, hostingId: string, now: Date): Promise<void>;
}

/** A refusal of the hosting upstream the customer can act on (400 unless said otherwise; `not_found` is a 404, `quota` a 409). */
export class HostingRefusal extends Error {
  constructor(
    readonly reason: 'too_large' | 'not_found' | 'invalid' | 'git_failed' | 'binary' | 'exists' | 'quota',
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}
