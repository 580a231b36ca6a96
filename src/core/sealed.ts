import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Text sealed with the app's key: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` (base64url), with
 * associated data naming what the text belongs to (a webhook, a hosting account, an idempotency
 * record), so a ciphertext copied onto another row does not open. What stores a secret, or an
 * answer that may carry one, stores it sealed.
 */
export function seal(key: Buffer, belongsTo: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(belongsTo));
  const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
    '.',
  );
}

/** The text `seal` sealed for `belongsTo`; throws when the key, the owner or the text differ. */
export function unseal(key: Buffer, belongsTo: string, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unknown sealed text format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(belongsTo));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
