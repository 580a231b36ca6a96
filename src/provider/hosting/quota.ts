import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { HostingRefusal, type SiteQuota, type SiteUsage } from './types.ts';

/**
 * What a site's quota counts under `dirs`: the bytes of its plain files, and one inode per
 * entry (directories included, the roots too). A full walk: simulated sites are small, and a
 * walk cannot drift from the disk as a kept counter could; a real driver asks the hosting
 * node's quota system instead.
 */
export async function measure(dirs: string[]): Promise<SiteUsage> {
  let diskBytes = 0;
  let inodes = 0;
  const stack = [...dirs];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    inodes++;
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) stack.push(full);
      else {
        inodes++;
        // A file gone since the listing (git renames as it writes) counts as gone.
        if (e.isFile()) diskBytes += (await fs.lstat(full).catch(() => null))?.size ?? 0;
      }
    }
  }
  return { diskBytes, inodes };
}

export const plus = (a: SiteUsage, b: SiteUsage): SiteUsage => ({
  diskBytes: a.diskBytes + b.diskBytes,
  inodes: a.inodes + b.inodes,
});

export const minus = (a: SiteUsage): SiteUsage => ({ diskBytes: -a.diskBytes, inodes: -a.inodes });

/** What is left under the quota after `used` (never below nothing). */
export const remaining = (used: SiteUsage, quota: SiteQuota): SiteUsage => ({
  diskBytes: Math.max(0, quota.diskBytes - used.diskBytes),
  inodes: Math.max(0, quota.inodes - used.inodes),
});

/**
 * Refuses (HostingRefusal 'quota') a change that takes usage from `used` to `next` when it
 * passes a quota and grows: a site already over (a smaller plan) can still shrink.
 */
export function checkQuota(used: SiteUsage, next: SiteUsage, quota: SiteQuota | undefined): void {
  if (!quota) return;
  if (next.diskBytes > quota.diskBytes && next.diskBytes > used.diskBytes) {
    throw new HostingRefusal(
      'quota',
      `The plan's disk quota is ${quota.diskBytes} bytes and this change would bring the site to ${next.diskBytes} (${used.diskBytes} used now): delete files or move to a larger plan.`,
    );
  }
  if (next.inodes > quota.inodes && next.inodes > used.inodes) {
    throw new HostingRefusal(
      'quota',
      `The plan allows ${quota.inodes} files and directories and this change would bring the site to ${next.inodes} (${used.inodes} now): delete some or move to a larger plan.`,
    );
  }
}
