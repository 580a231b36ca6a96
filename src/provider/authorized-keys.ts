import { createHash } from 'node:crypto';

/** The log's record of root's authorized_keys: each key by its SHA256 fingerprint, as sshd logs them. */
export function authorizedKeysLine(keys: string[]): string {
  const fingerprints = keys.map(
    (k) =>
      `SHA256:${createHash('sha256')
        .update(Buffer.from(k.split(' ')[1] ?? '', 'base64'))
        .digest('base64')
        .replace(/=+$/, '')}`,
  );
  return `authorized_keys: ${fingerprints.join(' ')}`;
}
